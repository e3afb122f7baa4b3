/**
 * JMH benchmarks of quorumlock beside its peers (Redisson, Spring Integration) and the
 * raw-Lettuce floor, on local Redis servers started by {@code benchmarks/run.sh}.
 */
package io.quorumlock.bench;
