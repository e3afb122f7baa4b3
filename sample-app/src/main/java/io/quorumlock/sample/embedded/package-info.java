/**
 * Zero-setup Redis for the sample: three local {@code redis-server} masters started with
 * the application when nothing else is configured.
 */
package io.quorumlock.sample.embedded;
