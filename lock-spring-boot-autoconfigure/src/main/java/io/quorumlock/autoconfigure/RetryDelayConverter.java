package io.quorumlock.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationPropertiesBinding;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.convert.converter.Converter;

/**
 * Binds {@code quorumlock.retry-delay} written as {@code min..max}, such as
 * {@code 10ms..200ms}.
 */
@ConfigurationPropertiesBinding
final class RetryDelayConverter implements Converter<String, RetryDelay> {

	@Override
	public RetryDelay convert(String source) {
		int separator = source.indexOf("..");
		if (separator < 0) {
			throw new IllegalArgumentException(
					"'" + source + "' is not a delay range; write min..max, such as 10ms..200ms");
		}
		return new RetryDelay(DurationStyle.detectAndParse(source.substring(0, separator).trim()),
				DurationStyle.detectAndParse(source.substring(separator + 2).trim()));
	}

}
