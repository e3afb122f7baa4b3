package io.quorumlock.redis;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rule that counts a master listed under two names once: among the entries whose
 * server reported the same {@code run_id}, the first in configuration order votes.
 */
class SameServerTests {

	@Test
	void distinctServersAreNobodysDuplicate() {
		List<String> ids = List.of("a", "b", "c");
		for (int i = 0; i < ids.size(); i++) {
			assertThat(SameServer.firstWithSameId(ids, i)).isEqualTo(-1);
		}
	}

	@Test
	void laterEntryOfTheSameServerIsTheDuplicateOfTheFirst() {
		List<String> ids = List.of("a", "b", "a", "a");
		assertThat(SameServer.firstWithSameId(ids, 0)).isEqualTo(-1);
		assertThat(SameServer.firstWithSameId(ids, 1)).isEqualTo(-1);
		assertThat(SameServer.firstWithSameId(ids, 2)).isZero();
		assertThat(SameServer.firstWithSameId(ids, 3)).isZero();
	}

	@Test
	void unknownIdentityIsNobodysDuplicateAndHidesNobody() {
		// entry 0 is down (its run_id unknown): entry 2 is the first known copy of "a"
		List<String> ids = Arrays.asList(null, "b", "a", "a");
		assertThat(SameServer.firstWithSameId(ids, 0)).isEqualTo(-1);
		assertThat(SameServer.firstWithSameId(ids, 2)).isEqualTo(-1);
		assertThat(SameServer.firstWithSameId(ids, 3)).isEqualTo(2);
	}

	@Test
	void startUpRefusalNamesBothEntriesWithoutCredentials() {
		List<String> names = List.of("redis://localhost:7101", "redis://127.0.0.1:7101", "redis://127.0.0.1:7102");
		assertThat(SameServer.describeDuplicates(names, List.of("x1", "x1", "x2"))).singleElement()
			.asString()
			.startsWith(
					"nodes: redis://localhost:7101 and redis://127.0.0.1:7101 are the same Redis server (run_id x1)");
		assertThat(SameServer.describeDuplicates(names, Arrays.asList("x1", null, "x2"))).isEmpty();
	}

}
