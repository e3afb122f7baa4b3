package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * The etcd cluster the locks live on ({@code quorumlock.etcd.*}), when
 * {@code io.quorumlock:lock-etcd} is on the class path. Setting the endpoints selects
 * etcd mode in place of Redis; the key prefix, the lease defaults, the instances, the
 * clock drift factor and on-lease-lost apply as in Redis mode.
 */
public final class EtcdProperties {

	/**
	 * Client URLs of the etcd members, such as http://etcd-1:2379 (https:// for TLS).
	 * Setting them locks on etcd instead of Redis; they cannot be combined with
	 * quorumlock.nodes.
	 */
	private List<String> endpoints = new ArrayList<>();

	/**
	 * Login user of etcd's authentication.
	 */
	private String username;

	/**
	 * Login password of etcd's authentication.
	 */
	private String password;

	/**
	 * Bound on each etcd request's answer (connect included). An unanswered request is
	 * asked again, never taken for a refusal. A lease that renews must be longer than
	 * three of them.
	 */
	private Duration requestTimeout = Duration.ofSeconds(1);

	/**
	 * TLS settings of the https:// endpoints.
	 */
	@NestedConfigurationProperty
	private final EtcdSsl ssl = new EtcdSsl();

	public EtcdSsl getSsl() {
		return this.ssl;
	}

	public List<String> getEndpoints() {
		return this.endpoints;
	}

	public void setEndpoints(List<String> endpoints) {
		this.endpoints = endpoints;
	}

	public String getUsername() {
		return this.username;
	}

	public void setUsername(String username) {
		this.username = username;
	}

	public String getPassword() {
		return this.password;
	}

	public void setPassword(String password) {
		this.password = password;
	}

	public Duration getRequestTimeout() {
		return this.requestTimeout;
	}

	public void setRequestTimeout(Duration requestTimeout) {
		this.requestTimeout = requestTimeout;
	}

	@Override
	public String toString() {
		return "EtcdProperties[endpoints=" + this.endpoints + ", username=" + this.username + ", password="
				+ ((this.password != null) ? "******" : null) + ", requestTimeout=" + this.requestTimeout + "]";
	}

}
