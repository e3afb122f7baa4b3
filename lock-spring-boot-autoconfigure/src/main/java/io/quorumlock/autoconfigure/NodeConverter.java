package io.quorumlock.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationPropertiesBinding;
import org.springframework.core.convert.converter.Converter;

/**
 * Binds a {@code quorumlock.nodes} entry written as a plain URI string.
 */
@ConfigurationPropertiesBinding
final class NodeConverter implements Converter<String, NodeProperties> {

	@Override
	public NodeProperties convert(String source) {
		return new NodeProperties(source.trim());
	}

}
