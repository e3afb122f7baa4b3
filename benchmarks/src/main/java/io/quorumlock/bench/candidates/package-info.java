/**
 * The locks under test, each behind {@link io.quorumlock.bench.candidates.LockClient}.
 */
package io.quorumlock.bench.candidates;
