package io.quorumlock.redis.node;

import java.nio.charset.StandardCharsets;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scripts' arguments as {@link LettuceLink} writes them: byte for byte what Lettuce's
 * own {@code evalsha} writes, whatever the characters, with the first key still the one a
 * cluster connection routes by.
 */
class LettuceLinkTests {

	private static final String SHA = Script.RELEASE_HANDOFF.sha1();

	private static final String[] KEYS = { "orders:{42}", "orders:{42}:queue", "commandes:{été}:✓" };

	private static final String[] ARGS = { "0123456789abcdef0123456789abcdef01234567", "30000", "ünïcödé ✓ 𝄞", "" };

	@Test
	void scriptArgumentsAreTheBytesOfLettucesOwnEvalsha() {
		CommandArgs<String, String> lettuce = new CommandArgs<>(StringCodec.UTF8).add(SHA)
			.add(KEYS.length)
			.addKeys(KEYS)
			.addValues(ARGS);
		assertThat(encoded(LettuceLink.scriptArgs(SHA, KEYS, ARGS))).isEqualTo(encoded(lettuce));
	}

	@Test
	void aScriptWithOneKeyAndNoArgumentsIsWrittenAsLettuceWouldToo() {
		String[] one = { "k" };
		CommandArgs<String, String> lettuce = new CommandArgs<>(StringCodec.UTF8).add(SHA).add(1).addKeys(one);
		assertThat(encoded(LettuceLink.scriptArgs(SHA, one, new String[0]))).isEqualTo(encoded(lettuce));
	}

	@Test
	void theFirstKeyIsTheKeyACommandIsRoutedBy() {
		assertThat(LettuceLink.scriptArgs(SHA, KEYS, ARGS).getFirstEncodedKey())
			.isEqualTo(StringCodec.UTF8.encodeKey(KEYS[0]));
	}

	private static String encoded(CommandArgs<String, String> args) {
		ByteBuf buffer = Unpooled.buffer();
		try {
			args.encode(buffer);
			return buffer.toString(StandardCharsets.UTF_8);
		}
		finally {
			buffer.release();
		}
	}

}
