/**
 * How a user tests their own locked code: the examples of docs/testing.md, on real
 * masters started by lock-test ({@code @RedisMasters}) and on Redis containers
 * ({@code @ServiceConnection}).
 */
package io.quorumlock.sample.testing;
