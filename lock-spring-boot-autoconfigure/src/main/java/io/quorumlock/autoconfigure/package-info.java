/**
 * Spring Boot auto-configuration of quorumlock: {@code quorumlock.*} properties, the
 * engine in single or quorum mode, the {@code @DistributedLock} advisor and start-up
 * checks. Only wires; no lock algorithm lives here.
 */
package io.quorumlock.autoconfigure;
