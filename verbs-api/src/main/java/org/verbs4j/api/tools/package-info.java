/**
 * Not for applications: a parser of {@code ibv_devinfo} output, exported only to verbs4j's own modules for
 * their tests and tools (comparing what verbs4j reads with what rdma-core prints).
 */
package org.verbs4j.api.tools;
