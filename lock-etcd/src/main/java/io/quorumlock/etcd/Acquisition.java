package io.quorumlock.etcd;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.quorumlock.LockException;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.QuorumUnavailableException;

/**
 * One acquisition, as a chain of etcd requests that never blocks a thread:
 * <ol>
 * <li>grant a per-hold etcd lease (the TTL of the request's lease, in whole
 * seconds);</li>
 * <li>for each key in order: write this hold's key in the lock's range in a transaction
 * that requires its create revision to be 0, and read the lock's oldest key; if it is
 * ours, the key is held;</li>
 * <li>else (unless the request does not wait) watch the predecessor (the newest older
 * key) for its delete; after every wake-up <b>re-check</b>: a keep-alive of our lease
 * must be answered with a TTL above 0, and a transaction that requires every key of ours
 * to keep its create revision touches ours and reads the predecessor again. A lease that
 * expired while waiting (the keep-alive answers 0, or our key is gone) is not granted:
 * the acquisition starts over under a fresh lease while its wait allows;</li>
 * <li>granted when the last key is held: the validity counts from the start of the last
 * request that confirmed the lease.</li>
 * </ol>
 * A request that is not answered in time is <em>unknown</em>, never "held elsewhere": it
 * is asked again after the retry delay, until the wait runs out (and for at least three
 * request timeouts, so that a request that does not wait survives a slow answer); only
 * then does an acquisition that got no answer fail with
 * {@link QuorumUnavailableException}. A failed, timed out or cancelled acquisition
 * revokes its etcd lease, which deletes every key it wrote.
 */
final class Acquisition implements KeepAlives.Kept {

	private final EtcdLockRegistry registry;

	private final EtcdRequest request;

	private final EtcdCalls calls;

	private final ByteSequence value;

	final CompletableFuture<EtcdLease> result = new CompletableFuture<>();

	private final long startedAt;

	/** When waiting for other holders ends. */
	private final long waitUntil;

	/** When asking again after unanswered requests ends. */
	private final long answerUntil;

	private final AtomicBoolean done = new AtomicBoolean();

	private final long ttlSeconds;

	private volatile long leaseId;

	private volatile long leaseConfirmedAt;

	private volatile long confirmedAt;

	private volatile long lastKeepAlive;

	private volatile boolean keepingAlive;

	private List<ByteSequence> ownKeys = List.of();

	private long[] revisions;

	private int index;

	private long grantRevision;

	/** The current wait on a predecessor, or null. */
	private volatile Waiting waiting;

	/** Whether the last request went unanswered (the wait's end then reports it). */
	private volatile boolean lastUnanswered;

	private volatile ScheduledFuture<?> waitTimer;

	private volatile boolean answered;

	private volatile String lastProblem = "no answer yet";

	private int attempts;

	private volatile CompletableFuture<Void> revoking = CompletableFuture.completedFuture(null);

	Acquisition(EtcdLockRegistry registry, EtcdRequest request, long startedAt, long waitNanos) {
		this.registry = registry;
		this.request = request;
		this.calls = registry.calls();
		this.value = registry.holderValue();
		this.startedAt = startedAt;
		this.waitUntil = startedAt + Math.min(waitNanos, Long.MAX_VALUE / 4);
		this.answerUntil = Math.max(this.waitUntil, startedAt + 3 * registry.requestTimeoutNanos());
		this.ttlSeconds = Validity.ttlSeconds(request.lease());
		this.revisions = new long[request.lockKeys().size()];
	}

	EtcdRequest request() {
		return this.request;
	}

	void start() {
		if (this.waitUntil - this.startedAt > 0 && this.waitUntil - this.startedAt < Long.MAX_VALUE / 4) {
			this.waitTimer = this.registry.keepAlives().later(this.waitUntil - System.nanoTime(), this::waitedOut);
		}
		grant();
	}

	private void grant() {
		if (this.done.get()) {
			return;
		}
		this.attempts++;
		long sentAt = System.nanoTime();
		this.calls.grant(this.ttlSeconds).whenComplete((granted, failure) -> {
			if (failure != null) {
				unanswered(failure, this::grant);
				return;
			}
			this.answered = true;
			this.lastUnanswered = false;
			if (this.done.get()) {
				this.calls.revoke(granted.getID());
				return;
			}
			this.leaseId = granted.getID();
			this.leaseConfirmedAt = sentAt;
			this.lastKeepAlive = sentAt;
			this.confirmedAt = sentAt;
			List<ByteSequence> keys = new ArrayList<>(this.request.lockKeys().size());
			for (int i = 0; i < this.request.lockKeys().size(); i++) {
				keys.add(this.request.ownKey(i, granted.getID()));
			}
			this.ownKeys = keys;
			this.revisions = new long[keys.size()];
			this.index = 0;
			this.registry.keepAlives().add(this);
			enqueue();
		});
	}

	/** Write our key of the current lock key and see whether it is the oldest. */
	private void enqueue() {
		if (this.done.get()) {
			return;
		}
		int i = this.index;
		long lease = this.leaseId;
		this.calls.enqueue(this.ownKeys.get(i), this.request.blockers().get(i), this.value, lease)
			.whenComplete((response, failure) -> {
				if (failure != null) {
					if (EtcdCalls.leaseNotFound(failure)) {
						startOver("its etcd lease expired before its key was written");
					}
					else {
						unanswered(failure, this::enqueue);
					}
					return;
				}
				this.answered = true;
				this.lastUnanswered = false;
				List<KeyValue> own = response.getGetResponses().get(0).getKvs();
				if (own.isEmpty()) {
					startOver("its key was gone right after it was written");
					return;
				}
				this.revisions[i] = own.get(0).getCreateRevision();
				List<KeyValue> oldest = response.getGetResponses().get(1).getKvs();
				// held when fewer blocking keys than allowed are older than ours: none
				// for an exclusive or a shared request, fewer than k for one of k permits
				long older = oldest.stream().filter((kv) -> kv.getCreateRevision() < this.revisions[i]).count();
				if (older < this.request.blockers().get(i).limit()) {
					held(response.getHeader().getRevision());
				}
				else if (this.waitUntil - System.nanoTime() <= 0) {
					fail(notAcquired("held elsewhere"));
				}
				else {
					findPredecessor();
				}
			});
	}

	private void findPredecessor() {
		if (this.done.get()) {
			return;
		}
		int i = this.index;
		this.calls.predecessor(this.request.blockers().get(i), this.revisions[i]).whenComplete((response, failure) -> {
			if (failure != null) {
				unanswered(failure, this::findPredecessor);
				return;
			}
			this.lastUnanswered = false;
			watchOrConfirm(response);
		});
	}

	/**
	 * Wait for the predecessor in {@code response} to go, or re-check at once if none.
	 */
	private void watchOrConfirm(GetResponse response) {
		if (this.done.get()) {
			return;
		}
		EtcdRequest.Blockers blockers = this.request.blockers().get(this.index);
		if (response.getKvs().size() < blockers.limit()) {
			confirm();
			return;
		}
		Waiting wait = new Waiting();
		this.waiting = wait;
		long from = response.getHeader().getRevision() + 1;
		try {
			// the predecessor's delete; for permits, any delete of an older permit holder
			wait.watcher = (blockers.limit() == 1)
					? this.calls.onDelete(response.getKvs().get(0).getKey(), from, () -> wake(wait))
					: this.calls.onDelete(blockers.start(), blockers.end(), from, () -> wake(wait));
		}
		catch (RuntimeException ex) {
			this.waiting = null;
			unanswered(ex, this::findPredecessor);
			return;
		}
		if (wait.woken.get() || this.done.get()) {
			wait.watcher.close();
		}
	}

	/**
	 * The predecessor went, the watch failed, or our lease was answered gone: re-check
	 * before counting as a holder. Once per wait, whoever wakes it first.
	 */
	private void wake(Waiting wait) {
		if (!wait.woken.compareAndSet(false, true)) {
			return;
		}
		if (this.waiting == wait) {
			this.waiting = null;
		}
		Watch.Watcher watcher = wait.watcher;
		if (watcher != null) {
			watcher.close();
		}
		confirm();
	}

	/**
	 * The re-check after a wake-up: our lease must be answered alive, and every key of
	 * ours must still have its create revision; then the predecessor is read again.
	 */
	private void confirm() {
		if (this.done.get()) {
			return;
		}
		int i = this.index;
		long lease = this.leaseId;
		long sentAt = System.nanoTime();
		CompletableFuture<LeaseKeepAliveResponse> alive = this.calls.keepAlive(lease);
		CompletableFuture<TxnResponse> check = this.calls.confirm(this.ownKeys, this.revisions, i,
				this.request.blockers().get(i), this.value, lease);
		alive.thenCombine(check, (answer, response) -> {
			this.answered = true;
			this.lastUnanswered = false;
			if (answer.getTTL() <= 0) {
				startOver("its own etcd lease expired while it waited");
			}
			else if (!response.isSucceeded()) {
				startOver("its own key was gone after it waited (its etcd lease expired or the key was deleted)");
			}
			else {
				this.leaseConfirmedAt = sentAt;
				this.confirmedAt = sentAt;
				GetResponse predecessor = response.getGetResponses().get(0);
				if (predecessor.getKvs().size() < this.request.blockers().get(i).limit()) {
					held(response.getHeader().getRevision());
				}
				else {
					watchOrConfirm(predecessor);
				}
			}
			return null;
		}).whenComplete((ignored, failure) -> {
			if (failure != null) {
				Throwable cause = EtcdCalls.unwrap(failure);
				if (EtcdCalls.leaseNotFound(cause)) {
					startOver("its own etcd lease expired while it waited");
				}
				else {
					unanswered(cause, this::confirm);
				}
			}
		});
	}

	/** Key {@link #index} is held, decided at {@code revision}. */
	private void held(long revision) {
		this.grantRevision = revision;
		this.index++;
		if (this.index < this.ownKeys.size()) {
			enqueue();
			return;
		}
		long validUntil = this.registry.validity().validUntil(this.confirmedAt, this.request.lease().toNanos());
		if (validUntil - System.nanoTime() <= 0) {
			// slowness, not another holder: tried again while waiting or asking may go on
			if (this.waitUntil - System.nanoTime() > 0 || this.answerUntil - System.nanoTime() > 0) {
				this.attempts = 0;
				startOver("its validity was used up by the acquisition");
			}
			else {
				fail(notAcquired("validity exhausted by acquisition time"));
			}
			return;
		}
		if (!this.done.compareAndSet(false, true)) {
			this.calls.revoke(this.leaseId);
			return;
		}
		cancelTimer();
		this.registry.keepAlives().remove(this);
		EtcdLease lease = new EtcdLease(this.registry, this.request, this.ownKeys, this.revisions, this.grantRevision,
				this.leaseId, this.startedAt, this.confirmedAt, this.value);
		this.registry.granted(this, lease);
	}

	/**
	 * Our lease or key is gone: revoke what is left and start over under a fresh lease.
	 */
	private void startOver(String why) {
		this.lastProblem = "the previous attempt's " + why.replaceFirst("^its ", "");
		this.registry.keepAlives().remove(this);
		closeWatcher();
		this.calls.revoke(this.leaseId);
		this.leaseId = 0;
		if (this.done.get()) {
			return;
		}
		if (this.waitUntil - System.nanoTime() > 0 || this.attempts < 2) {
			grant();
		}
		else {
			fail(notAcquired("not granted: " + why));
		}
	}

	/**
	 * A request got no answer: ask again after the retry delay while answers may come.
	 */
	private void unanswered(Throwable failure, Runnable again) {
		this.lastProblem = EtcdCalls.describe(failure);
		this.lastUnanswered = true;
		this.registry.listeners().nodeError(this.registry.address(), failure);
		if (this.done.get()) {
			return;
		}
		long delay = this.registry.retryDelayNanos();
		if (this.answerUntil - (System.nanoTime() + delay) > 0) {
			this.registry.keepAlives().later(delay, again);
		}
		else {
			fail(unavailable());
		}
	}

	private QuorumUnavailableException unavailable() {
		return new QuorumUnavailableException(this.request.describe() + ": not acquired, etcd did not answer ("
				+ this.lastProblem + "), " + elapsedMillis() + " ms elapsed" + waited());
	}

	/** The wait ran out. */
	private void waitedOut() {
		fail(this.lastUnanswered ? unavailable() : notAcquired("held elsewhere"));
	}

	/** Keep our lease alive while we wait (every third of its etcd TTL). */
	@Override
	public void pass(long now) {
		long lease = this.leaseId;
		if (this.done.get() || lease == 0 || this.keepingAlive
				|| now - this.lastKeepAlive < TimeUnit.SECONDS.toNanos(this.ttlSeconds) / 3) {
			return;
		}
		this.keepingAlive = true;
		this.lastKeepAlive = now;
		this.calls.keepAlive(lease).whenComplete((answer, failure) -> {
			this.keepingAlive = false;
			Waiting wait = this.waiting;
			if (failure == null && answer.getTTL() <= 0 && this.leaseId == lease && wait != null) {
				// etcd says our lease is gone while we wait: our key went with it, and
				// the re-check that this wake-up runs starts over
				wake(wait);
			}
			else if (failure == null) {
				this.leaseConfirmedAt = now;
			}
		});
	}

	/** End the acquisition without a lease, unless it already ended. */
	boolean fail(LockException failure) {
		if (!this.done.compareAndSet(false, true)) {
			return false;
		}
		cancelTimer();
		closeWatcher();
		this.registry.keepAlives().remove(this);
		long lease = this.leaseId;
		if (lease == 0) {
			this.registry.notAcquired(this, failure);
			return true;
		}
		// the caller hears of the failure once its keys are gone (or the revoke went
		// unanswered: then they go with the lease's TTL), so nothing is left behind
		this.revoking = this.calls.revoke(lease).exceptionally((ex) -> null);
		this.revoking.whenComplete((ignored, error) -> this.registry.notAcquired(this, failure));
		return true;
	}

	/** The revoke of the etcd lease of a failed acquisition, for close() to wait for. */
	CompletableFuture<Void> revoking() {
		return this.revoking;
	}

	private void cancelTimer() {
		ScheduledFuture<?> timer = this.waitTimer;
		if (timer != null) {
			timer.cancel(false);
		}
	}

	private void closeWatcher() {
		Waiting wait = this.waiting;
		this.waiting = null;
		if (wait != null) {
			wait.woken.set(true);
			Watch.Watcher watcher = wait.watcher;
			if (watcher != null) {
				watcher.close();
			}
		}
	}

	/** One wait on a predecessor: its watch, and whether it was woken. */
	private static final class Waiting {

		final AtomicBoolean woken = new AtomicBoolean();

		volatile Watch.Watcher watcher;

	}

	LockNotAcquiredException notAcquired(String why) {
		return new LockNotAcquiredException(
				this.request.describe() + ": not acquired, " + why + ", " + elapsedMillis() + " ms elapsed" + waited());
	}

	private String waited() {
		long wait = this.request.waitAtMost().toMillis();
		return (wait > 0) ? ", waited at most " + wait + " ms" : "";
	}

	long elapsedMillis() {
		return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - this.startedAt);
	}

	long startedAt() {
		return this.startedAt;
	}

	@Override
	public String toString() {
		return "Acquisition[" + this.request.describe() + "]";
	}

}
