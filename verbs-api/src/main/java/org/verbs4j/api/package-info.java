/**
 * The verbs: devices ({@link org.verbs4j.api.Rdma}, {@link org.verbs4j.api.RdmaDevice},
 * {@link org.verbs4j.api.DeviceContext}), protection domains, memory regions, completion queues and channels,
 * queue pairs, shared receive queues and address handles, each mirroring its libibverbs object, with the work
 * request and completion arrays ({@link org.verbs4j.api.SendRequests}, {@link org.verbs4j.api.ReceiveRequests},
 * {@link org.verbs4j.api.WorkCompletions}) as flyweights over the native structs, and
 * {@link org.verbs4j.api.QpConnector} and {@link org.verbs4j.api.Fabric} for code that runs on every fabric.
 *
 * <p>Every object that holds a native resource is {@link java.lang.AutoCloseable}: close it when done, children
 * (a PD's QPs and MRs) before their parent. Posting and polling allocate nothing. A failed verb throws
 * {@link org.verbs4j.api.VerbsException} with the verb, its errno and what to check.
 */
package org.verbs4j.api;
