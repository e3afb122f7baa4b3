package io.quorumlock.redis;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import io.quorumlock.redis.node.Voter;

/**
 * Voter URIs are read strictly, and shown without their user info.
 */
class NodeUriTests {

	@Test
	void problemsNameWhatIsWrongWithoutTheUri() {
		assertThat(NodeUri.problem("redis://h:6379/0")).isEmpty();
		assertThat(NodeUri.problem("")).hasValue("a node URI must not be empty");
		assertThat(NodeUri.problem("http://h:6379")).hasValue("must start with redis:// or rediss://, not http://");
		assertThat(NodeUri.problem("redis://u:pw@h:notaport"))
			.hasValue("needs a host and a numeric port, as redis://host:6379");
		assertThat(NodeUri.problem("redis://h:70000")).hasValue("has port 70000, outside 1..65535");
		assertThat(NodeUri.problem("redis://h:6379/x"))
			.hasValue("has path '/x'; only a database number such as /0 is allowed");
	}

	@Test
	void parseRefusesWithTheRedactedUri() {
		assertThatIllegalArgumentException().isThrownBy(() -> NodeUri.parse("redis://app:s3cret@h:notaport"))
			.withMessage("nodes: 'redis://******@h:notaport' needs a host and a numeric port, as redis://host:6379");
	}

	@Test
	void redactMasksUserInfoOnly() {
		assertThat(NodeUri.redact("rediss://app:pw@h:1/2")).isEqualTo("rediss://******@h:1/2");
		assertThat(NodeUri.redact("redis://h:1")).isEqualTo("redis://h:1");
		assertThat(NodeUri.redact(null)).isNull();
	}

}
