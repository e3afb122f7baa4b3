/**
 * The client side of the multi-instance demo ({@code sample-app/demo.sh}).
 */
package io.quorumlock.sample.demo;
