package io.quorumlock.web;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

import io.quorumlock.LeaseLostException;
import io.quorumlock.LockKeyException;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.RegistryStatus;
import io.quorumlock.aop.LockKeyExpressionException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LockProblemDetails} without a server: what a caller is told for each kind of
 * engine message (the lock and the key kept, the masters' story worded as a category),
 * and how often the server logs the whole message.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
@ExtendWith(OutputCaptureExtension.class)
class LockProblemDetailsTests {

	private static final String NO_QUORUM = "lock 'orders' key 'lock:orders:{42}': quorum unavailable: acquired 1 of "
			+ "3 nodes, quorum 2, 1 answered, 3 ms elapsed (10.0.0.2:6379: not connected, last attempt: WRONGPASS "
			+ "invalid username-password pair or user is disabled.; 10.0.0.3:6379: held back by the restart guard "
			+ "for another 12 s: it lost its data (rejoin-delay 30 s))";

	private final AtomicLong now = new AtomicLong();

	private final LockProblemDetails handlers = new LockProblemDetails(null, false, this.now::get);

	@Test
	void quorumUnavailableNamesTheLockTheKeyAndTheCategoriesOnly() {
		ResponseEntity<ProblemDetail> answer = this.handlers
			.quorumUnavailable(new QuorumUnavailableException(NO_QUORUM));
		assertThat(answer.getStatusCode().value()).isEqualTo(503);
		assertThat(answer.getBody().getDetail()).isEqualTo("lock 'orders' key 'lock:orders:{42}': not acquired, no "
				+ "quorum: masters not connected, held back by the restart guard");
	}

	@Test
	void everyCategoryOfAMissingQuorumIsWordedWithoutItsMaster() {
		assertThat(detail503("lock key 'a': quorum unavailable: acquired 0 of 3 nodes (h:1: no answer in time)"))
			.isEqualTo("lock key 'a': not acquired, no quorum: masters did not answer in time");
		assertThat(detail503("lock 'n' key 'a': quorum unavailable: acquired 0 of 3 nodes (h:1: evicting: "
				+ "maxmemory-policy allkeys-lru ...; h:2: same Redis server as h:1 (run_id x), which votes for it)"))
			.isEqualTo("lock 'n' key 'a': not acquired, no quorum: masters that can evict lock keys, a master "
					+ "listed twice");
		assertThat(detail503("lock 'n' key 'a': quorum unavailable: 1 of 3 nodes voting, quorum 2, while queued"))
			.isEqualTo("lock 'n' key 'a': not acquired, no quorum: too few masters answered");
	}

	@Test
	void categoryComesFromTheStatusWhenTheMessageNamesNone() {
		RegistryStatus status = new FixedStatus(List.of(node("h:1", RegistryStatus.NodeState.VOTING),
				node("h:2", RegistryStatus.NodeState.DOWN), node("h:3", RegistryStatus.NodeState.EVICTING)));
		LockProblemDetails withStatus = new LockProblemDetails(status, false, this.now::get);
		assertThat(withStatus
			.quorumUnavailable(new QuorumUnavailableException("lock 'n' key 'a': quorum unavailable: 1 of 3 nodes "
					+ "voting, quorum 2, while queued behind another caller in this process"))
			.getBody()
			.getDetail())
			.isEqualTo("lock 'n' key 'a': not acquired, no quorum: masters not connected, masters that "
					+ "can evict lock keys");
	}

	@Test
	void contentionSaysHeldElsewhere() {
		ResponseEntity<ProblemDetail> answer = this.handlers.lockNotAcquired(new LockNotAcquiredException(
				"lock 'orders' key ['lock:orders:{1}', 'lock:orders:{2}'] (shared): not acquired, held elsewhere: "
						+ "acquired 1 of 3 nodes, quorum 2 (10.0.0.2:6379: not connected), 5 ms elapsed"));
		assertThat(answer.getStatusCode().value()).isEqualTo(423);
		assertThat(answer.getHeaders().getFirst("Retry-After")).isEqualTo("1");
		assertThat(answer.getBody().getDetail()).isEqualTo(
				"lock 'orders' key ['lock:orders:{1}', 'lock:orders:{2}'] (shared): not acquired, held elsewhere");
	}

	@Test
	void otherReasonsForNotAcquiringAreCategoriesToo() {
		assertThat(detail423("lock key 'k': not acquired, the waiting thread was interrupted"))
			.isEqualTo("lock key 'k': not acquired, the wait was interrupted");
		assertThat(detail423("lock key 'k': not acquired, the registry was closed"))
			.isEqualTo("lock key 'k': not acquired, the application is shutting down");
	}

	@Test
	void leaseLostNamesTheLockAndKeyOnly() {
		assertThat(this.handlers
			.leaseLost(new LeaseLostException("lock 'orders' key 'lock:orders:{42}': lease lost, renewal reached "
					+ "1 of 3 nodes (10.0.0.2:6379: not connected)"))
			.getBody()
			.getDetail())
			.isEqualTo("lock 'orders' key 'lock:orders:{42}': lease lost before its release: the work "
					+ "may have overlapped with another holder");
	}

	@Test
	void aMessageOfAnotherShapeKeepsNothingOfIt() {
		assertThat(detail423("10.0.0.2:6379 said no")).isEqualTo("not acquired, held elsewhere");
		assertThat(detail503("lock 'n' without a key: 10.0.0.2:6379 down"))
			.isEqualTo("not acquired, no quorum: too few masters answered");
	}

	@Test
	void aKeyThatLooksLikeTheEndOfTheOpeningIsCutShortNeverRunPast() {
		assertThat(detail423("lock key 'a': b': not acquired, held elsewhere (10.0.0.2:6379: not connected)"))
			.isEqualTo("lock key 'a': not acquired, held elsewhere");
	}

	@Test
	void anUnusableKeyIsTheCallersMistakeNamingTheLockAndTheExpression() {
		ResponseEntity<ProblemDetail> answer = this.handlers.lockKey(new LockKeyExpressionException(
				"SeatService.hold(Hold)", "seats", "#hold.seat", "evaluated to null", true));
		assertThat(answer.getStatusCode().value()).isEqualTo(400);
		assertThat(answer.getBody().getTitle()).isEqualTo("Lock key unusable");
		assertThat(answer.getBody().getDetail())
			.isEqualTo("lock 'seats': key \"#hold.seat\" evaluated to null; nothing was locked and nothing was done");
		assertThat(this.handlers
			.lockKey(new LockKeyException("lock 'n' key 'customer-0123...' is 19 characters long, above the maximum "
					+ "of 16 (quorumlock.max-key-length, QuorumLockEngine.Builder.maxKeyLength)"))
			.getBody()
			.getDetail()).isEqualTo("lock 'n' key 'customer-0123...' is 19 characters long, above the maximum of 16");
	}

	@Test
	void aKeyExpressionThatFailsWhateverTheRequestIsTheServersMistake() {
		ResponseEntity<ProblemDetail> answer = this.handlers
			.lockKey(new LockKeyExpressionException("SeatService.hold(Hold)", "seats", "#hold.nosuch",
					"could not be evaluated: EL1008E: Property or field 'nosuch' cannot be found", false));
		assertThat(answer.getStatusCode().value()).isEqualTo(500);
		assertThat(answer.getBody().getDetail()).isEqualTo("lock 'seats': the key expression could not be evaluated");
	}

	@Test
	void verboseDetailIsTheWholeMessage() {
		LockProblemDetails verbose = new LockProblemDetails(null, true, this.now::get);
		assertThat(verbose.quorumUnavailable(new QuorumUnavailableException(NO_QUORUM)).getBody().getDetail())
			.isEqualTo(NO_QUORUM);
	}

	@Test
	void serverLogsOneLinePerLockAndStatusPerMinuteCountingTheOthers(CapturedOutput output) {
		for (int i = 0; i < 5; i++) {
			this.handlers.quorumUnavailable(new QuorumUnavailableException(NO_QUORUM));
		}
		this.handlers.lockNotAcquired(new LockNotAcquiredException(
				"lock 'orders' key 'k': not acquired, held " + "elsewhere: acquired 1 of 3 nodes"));
		this.handlers.quorumUnavailable(new QuorumUnavailableException(NO_QUORUM.replace("'orders'", "'stock'")));
		assertThat(count(output, "quorumlock: answered 503 Service Unavailable: " + NO_QUORUM)).isOne();
		assertThat(count(output, "quorumlock: answered 423 Locked: lock 'orders' key 'k'")).isOne();
		assertThat(count(output, "quorumlock: answered 503 Service Unavailable: lock 'stock'")).isOne();
		this.now.addAndGet(LockProblemDetails.LOG_INTERVAL.toNanos() - 1);
		this.handlers.quorumUnavailable(new QuorumUnavailableException(NO_QUORUM));
		assertThat(count(output, "quorumlock: answered 503 Service Unavailable: lock 'orders'")).isOne();
		this.now.addAndGet(1);
		this.handlers.quorumUnavailable(new QuorumUnavailableException(NO_QUORUM));
		assertThat(count(output, "quorumlock: answered 503 Service Unavailable: lock 'orders'")).isEqualTo(2);
		assertThat(output).contains(NO_QUORUM + " (5 more like it since the line before, not logged)");
	}

	private String detail503(String message) {
		return this.handlers.quorumUnavailable(new QuorumUnavailableException(message)).getBody().getDetail();
	}

	private String detail423(String message) {
		return this.handlers.lockNotAcquired(new LockNotAcquiredException(message)).getBody().getDetail();
	}

	private static int count(CapturedOutput output, String text) {
		return output.getAll().split(java.util.regex.Pattern.quote(text), -1).length - 1;
	}

	private static RegistryStatus.Node node(String address, RegistryStatus.NodeState state) {
		boolean up = state != RegistryStatus.NodeState.DOWN;
		return new RegistryStatus.Node(address, up, Duration.ZERO, Duration.ofSeconds(5),
				state == RegistryStatus.NodeState.VOTING, Duration.ZERO, null, state, null, null, null);
	}

	private record FixedStatus(List<RegistryStatus.Node> nodes) implements RegistryStatus {

		@Override
		public String mode() {
			return "quorum";
		}

		@Override
		public int quorum() {
			return 2;
		}

		@Override
		public List<HeldLease> leases() {
			return List.of();
		}

	}

}
