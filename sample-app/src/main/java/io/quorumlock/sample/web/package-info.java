/**
 * HTTP error mapping for lock and domain failures.
 */
package io.quorumlock.sample.web;
