/**
 * The quorumlock sample: an order service using the starter as an application would.
 */
package io.quorumlock.sample;
