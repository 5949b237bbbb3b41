/**
 * Not for applications: raw native memory access and the struct layouts the flyweights write, exported only
 * to the backend ({@code org.verbs4j.jnr}). Native addresses are not bounds-checked here.
 */
package org.verbs4j.api.internal;
