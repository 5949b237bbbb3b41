/**
 * The rdma_cm connection manager (librdmacm): {@link org.verbs4j.api.cm.ConnectionManager} makes
 * {@link org.verbs4j.api.cm.CmId}s that resolve an IP address and route, listen, connect, accept, reject and
 * disconnect, carry private data, and (in the UDP port space) exchange UD addresses and join multicast groups.
 * It is the only way to connect on iWARP; {@code org.verbs4j.endpoint} builds connected endpoints on it.
 */
package org.verbs4j.api.cm;
