package org.verbs4j.api;

/**
 * Sizes of a queue pair's work queues ({@code struct ibv_qp_cap}). Asked for at creation; the device
 * may round them up, and {@link QueuePair#capabilities()} reports what it gave.
 */
public record QpCapabilities(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData) {
}
