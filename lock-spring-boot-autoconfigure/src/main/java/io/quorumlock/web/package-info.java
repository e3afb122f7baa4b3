/**
 * HTTP answers for lock failures, as RFC 9457 problem details, when Spring MVC or WebFlux
 * is present.
 */
package io.quorumlock.web;
