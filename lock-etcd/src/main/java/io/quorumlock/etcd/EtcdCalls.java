package io.quorumlock.etcd;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseGrantResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.maintenance.StatusResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.TxnOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;

/**
 * The only class that talks to jetcd: each operation the locks need, as one etcd request
 * whose future is bounded by the request timeout and completes on the registry's executor
 * (never on a gRPC or Vert.x event-loop thread). A future that times out means
 * <em>unknown</em>: the request may still be applied later, so every operation here is
 * harmless when it lands late or twice: keys are this hold's own (named by its etcd
 * lease), writes are guarded by the key's create revision, and a revoke names only this
 * hold's lease.
 * <p>
 * Transactions are sent with {@link TxnOption#DEFAULT}, which jetcd does not retry on its
 * own when the request may have been sent; jetcd's {@code Lock} service is not used.
 */
final class EtcdCalls {

	private final Client client;

	private final KV kv;

	private final io.etcd.jetcd.Lease leases;

	private final Watch watch;

	private final Duration timeout;

	private final Executor executor;

	EtcdCalls(Client client, Duration timeout, Executor executor) {
		this.client = client;
		this.kv = client.getKVClient();
		this.leases = client.getLeaseClient();
		this.watch = client.getWatchClient();
		this.timeout = timeout;
		// once the registry's threads are shut down, an answer completes where it arrives
		// rather than never
		this.executor = (task) -> {
			try {
				executor.execute(task);
			}
			catch (RejectedExecutionException ex) {
				task.run();
			}
		};
	}

	static ByteSequence bytes(String text) {
		return ByteSequence.from(text, StandardCharsets.UTF_8);
	}

	/** A new etcd lease of {@code ttlSeconds}. */
	CompletableFuture<LeaseGrantResponse> grant(long ttlSeconds) {
		return bounded(() -> this.leases.grant(ttlSeconds));
	}

	/** One keep-alive of a lease: TTL above 0 if etcd still has it, 0 if it expired. */
	CompletableFuture<LeaseKeepAliveResponse> keepAlive(long leaseId) {
		return bounded(() -> this.leases.keepAliveOnce(leaseId));
	}

	/**
	 * Revoke a lease, deleting every key attached to it. jetcd may re-send it when the
	 * connection fails; a revoke names only this hold's lease, so a re-send can never
	 * touch another holder's key.
	 */
	CompletableFuture<Void> revoke(long leaseId) {
		return bounded(() -> this.leases.revoke(leaseId)).thenApply((response) -> null);
	}

	/**
	 * Write this waiter's key under its lease if it does not exist yet (create revision
	 * 0), and read it back with the oldest key of the lock; a re-send after an unknown
	 * outcome finds the key already there and only reads. Get responses: [own key, oldest
	 * key].
	 */
	CompletableFuture<TxnResponse> enqueue(ByteSequence key, EtcdRequest.Blockers blockers, ByteSequence value,
			long leaseId) {
		Cmp absent = new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0));
		Op put = Op.put(key, value, PutOption.builder().withLeaseId(leaseId).build());
		Op own = Op.get(key, GetOption.DEFAULT);
		Op oldest = Op.get(blockers.start(),
				GetOption.builder()
					.withRange(blockers.end())
					.withSortField(GetOption.SortTarget.CREATE)
					.withSortOrder(GetOption.SortOrder.ASCEND)
					.withLimit(blockers.limit())
					.build());
		return bounded(
				() -> this.kv.txn(TxnOption.DEFAULT).If(absent).Then(put, own, oldest).Else(own, oldest).commit());
	}

	/**
	 * How many keys {@code [start, end)} holds, read linearizably (etcd answers only with
	 * a quorum of its members behind it), keys not returned.
	 */
	CompletableFuture<GetResponse> count(EtcdRequest.Blockers keys) {
		return bounded(
				() -> this.kv.get(keys.start(), GetOption.builder().withRange(keys.end()).withCountOnly(true).build()));
	}

	/**
	 * The newest blocking keys created before {@code revision}, as many as may be older
	 * (1 but for permits).
	 */
	CompletableFuture<GetResponse> predecessor(EtcdRequest.Blockers blockers, long revision) {
		return bounded(() -> this.kv.get(blockers.start(), predecessorOption(blockers, revision)));
	}

	private static GetOption predecessorOption(EtcdRequest.Blockers blockers, long revision) {
		return GetOption.builder()
			.withRange(blockers.end())
			.withMaxCreateRevision(revision - 1)
			.withSortField(GetOption.SortTarget.CREATE)
			.withSortOrder(GetOption.SortOrder.DESCEND)
			.withLimit(blockers.limit())
			.withKeysOnly(true)
			.build();
	}

	/**
	 * The re-check after a wake-up: only if every key of this hold up to {@code upTo}
	 * still has its create revision (so this hold's lease lives and nobody deleted them),
	 * touch the last one (a write, whose revision becomes the fencing token if this is
	 * the grant) and read its predecessor. Fails (not succeeded) if a key is gone.
	 */
	CompletableFuture<TxnResponse> confirm(List<ByteSequence> keys, long[] revisions, int upTo,
			EtcdRequest.Blockers blockers, ByteSequence value, long leaseId) {
		Cmp[] held = new Cmp[upTo + 1];
		for (int i = 0; i <= upTo; i++) {
			held[i] = new Cmp(keys.get(i), Cmp.Op.EQUAL, CmpTarget.createRevision(revisions[i]));
		}
		Op touch = Op.put(keys.get(upTo), value, PutOption.builder().withLeaseId(leaseId).build());
		Op predecessor = Op.get(blockers.start(), predecessorOption(blockers, revisions[upTo]));
		return bounded(() -> this.kv.txn(TxnOption.DEFAULT).If(held).Then(touch, predecessor).commit());
	}

	/**
	 * Release: delete the keys only if each still has this hold's create revision. Sent
	 * once: jetcd does not retry a transaction with {@link TxnOption#DEFAULT}, and nor do
	 * we; a key held by a later holder has another create revision and is never deleted.
	 */
	CompletableFuture<TxnResponse> release(List<ByteSequence> keys, long[] revisions) {
		Cmp[] held = new Cmp[keys.size()];
		Op[] deletes = new Op[keys.size()];
		for (int i = 0; i < keys.size(); i++) {
			held[i] = new Cmp(keys.get(i), Cmp.Op.EQUAL, CmpTarget.createRevision(revisions[i]));
			deletes[i] = Op.delete(keys.get(i), DeleteOption.DEFAULT);
		}
		return bounded(() -> this.kv.txn(TxnOption.DEFAULT).If(held).Then(deletes).commit());
	}

	/**
	 * Move the keys to another lease (an extension to a new length, or a minimum hold),
	 * only if each still has this hold's create revision; the create revision stays.
	 */
	CompletableFuture<TxnResponse> rehome(List<ByteSequence> keys, long[] revisions, ByteSequence value, long leaseId) {
		Cmp[] held = new Cmp[keys.size()];
		Op[] puts = new Op[keys.size()];
		for (int i = 0; i < keys.size(); i++) {
			held[i] = new Cmp(keys.get(i), Cmp.Op.EQUAL, CmpTarget.createRevision(revisions[i]));
			puts[i] = Op.put(keys.get(i), value, PutOption.builder().withLeaseId(leaseId).build());
		}
		return bounded(() -> this.kv.txn(TxnOption.DEFAULT).If(held).Then(puts).commit());
	}

	/**
	 * Watch {@code key} from {@code fromRevision} and run {@code wake} once, on the
	 * executor, at its delete, or when the watch fails or ends (the caller re-checks in
	 * every case).
	 * @return the watch, to close
	 */
	Watch.Watcher onDelete(ByteSequence key, long fromRevision, Runnable wake) {
		return onDelete(key, null, fromRevision, wake);
	}

	/**
	 * As {@link #onDelete(ByteSequence, long, Runnable)}, for any key of
	 * {@code [start, end)}: a permit waiter wakes when any older permit holder goes.
	 * @return the watch, to close
	 */
	Watch.Watcher onDelete(ByteSequence start, ByteSequence end, long fromRevision, Runnable wake) {
		AtomicBoolean woken = new AtomicBoolean();
		Runnable once = () -> {
			if (woken.compareAndSet(false, true)) {
				this.executor.execute(wake);
			}
		};
		WatchOption.Builder option = WatchOption.builder().withRevision(fromRevision).withNoPut(true);
		if (end != null) {
			option.withRange(end);
		}
		return this.watch.watch(start, option.build(), Watch.listener((response) -> {
			for (WatchEvent event : response.getEvents()) {
				if (event.getEventType() == WatchEvent.EventType.DELETE) {
					once.run();
				}
			}
		}, (error) -> once.run(), once));
	}

	/**
	 * Every key under {@code prefix} (the holds and waiters of one lock, or every lock
	 * key of the registry), with its lease but not its value, for operators.
	 */
	CompletableFuture<GetResponse> keysUnder(ByteSequence prefix) {
		return bounded(() -> this.kv.get(prefix, GetOption.builder().isPrefix(true).withKeysOnly(true).build()));
	}

	/**
	 * Delete one key whoever wrote it: for a forced unlock of a key without a lease only
	 * (the locks write every key under a lease, which is revoked instead).
	 */
	CompletableFuture<Void> deleteKey(ByteSequence key) {
		return bounded(() -> this.kv.delete(key, DeleteOption.DEFAULT)).thenApply((response) -> null);
	}

	/**
	 * One member's status (its leader as it sees it, its raft term), asked of that member
	 * alone at its client URL: whether it answers, and whether it knows a leader.
	 */
	CompletableFuture<StatusResponse> status(String endpoint) {
		return bounded(() -> this.client.getMaintenanceClient().statusMember(endpoint));
	}

	void close() {
		this.client.close();
	}

	private <T> CompletableFuture<T> bounded(Supplier<CompletableFuture<T>> request) {
		CompletableFuture<T> call;
		try {
			call = request.get();
		}
		catch (RuntimeException ex) {
			// a closed client refuses at once: an answer like any other failure
			return CompletableFuture.failedFuture(ex);
		}
		CompletableFuture<T> result = new CompletableFuture<>();
		call.orTimeout(this.timeout.toNanos(), TimeUnit.NANOSECONDS).whenCompleteAsync((value, failure) -> {
			if (failure != null) {
				result.completeExceptionally(unwrap(failure));
			}
			else {
				result.complete(value);
			}
		}, this.executor);
		return result;
	}

	static Throwable unwrap(Throwable failure) {
		Throwable current = failure;
		while ((current instanceof CompletionException || current instanceof ExecutionException)
				&& current.getCause() != null) {
			current = current.getCause();
		}
		return current;
	}

	/** Whether etcd answered that the lease named in a request does not exist. */
	static boolean leaseNotFound(Throwable failure) {
		for (Throwable current = failure; current != null; current = current.getCause()) {
			String message = current.getMessage();
			if (message != null && message.contains("requested lease not found")) {
				return true;
			}
		}
		return false;
	}

	/** A short description of a failure for messages. */
	static String describe(Throwable failure) {
		Throwable cause = unwrap(failure);
		if (cause instanceof TimeoutException) {
			return "no answer in time";
		}
		String message = cause.getMessage();
		return cause.getClass().getSimpleName() + ((message != null) ? ": " + message : "");
	}

}
