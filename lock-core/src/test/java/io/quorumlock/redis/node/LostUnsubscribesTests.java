package io.quorumlock.redis.node;

import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * UNSUBSCRIBEs lost with the pub/sub connection: sent again once it is back, unless a new
 * wait subscribed the channel meanwhile.
 */
class LostUnsubscribesTests {

	private final LostUnsubscribes lost = new LostUnsubscribes();

	private final List<String> unsubscribed = new ArrayList<>();

	@Test
	void unsubscribeLostWithTheConnectionIsSentAgain() {
		this.lost.answered("a", new RedisConnectionException("Connection closed"), false);
		assertThat(this.lost.isEmpty()).isFalse();
		this.lost.retry(this.unsubscribed::add);
		assertThat(this.unsubscribed).containsExactly("a");
		assertThat(this.lost.isEmpty()).isTrue();
	}

	@Test
	void channelSubscribedAgainIsNotUnsubscribed() {
		this.lost.answered("a", new RedisConnectionException("Connection closed"), false);
		this.lost.subscribed("a");
		this.lost.retry(this.unsubscribed::add);
		assertThat(this.unsubscribed).isEmpty();
	}

	@Test
	void answeredUnsubscribeIsNotSentAgain() {
		this.lost.answered("a", null, false);
		this.lost.answered("b", new RedisCommandExecutionException("ERR"), false);
		this.lost.answered("c", new RedisConnectionException("Connection closed"), true);
		assertThat(this.lost.isEmpty()).isTrue();
	}

}
