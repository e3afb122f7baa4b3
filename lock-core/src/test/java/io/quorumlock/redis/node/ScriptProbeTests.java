package io.quorumlock.redis.node;

import java.util.concurrent.CompletableFuture;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The script permission probe: a node whose user may not run the lock scripts refuses
 * grants until a later probe succeeds; a probe that fails otherwise changes nothing.
 */
class ScriptProbeTests {

	private final ScriptProbe probe = new ScriptProbe("lock:quorumlock:probe", "lock:quorumlock:probe:released");

	@Test
	void probesTheReleaseScriptOnItsKey() {
		this.probe.probe((script, key, args) -> {
			assertThat(script).isEqualTo(Script.RELEASE);
			assertThat(key).isEqualTo("lock:quorumlock:probe");
			return CompletableFuture.completedFuture(0L);
		}).join();
		assertThat(this.probe.<String>refused()).isNull();
	}

	@Test
	void nopermRefusesGrantsUntilAProbeSucceeds() {
		this.probe.probe(answer(new RedisCommandExecutionException("NOPERM this user has no permissions"))).join();
		CompletableFuture<String> refused = this.probe.refused();
		assertThat(refused).isNotNull();
		assertThatThrownBy(refused::join).hasCauseInstanceOf(RedisCommandExecutionException.class)
			.hasMessageContaining("refuses grants, this user may not run the lock scripts: NOPERM");
		// a timeout says nothing about permissions
		this.probe.probe(answer(new RedisCommandTimeoutException("timed out"))).join();
		assertThat(this.probe.<String>refused()).isNotNull();
		this.probe.probe((script, key, args) -> CompletableFuture.completedFuture(0L)).join();
		assertThat(this.probe.<String>refused()).isNull();
	}

	@Test
	void otherFailureDoesNotRefuse() {
		this.probe.probe(answer(new RedisCommandExecutionException("ERR something else"))).join();
		assertThat(this.probe.<String>refused()).isNull();
	}

	private static ScriptProbe.Eval answer(Throwable error) {
		return (script, key, args) -> CompletableFuture.failedFuture(error);
	}

}
