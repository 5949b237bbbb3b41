package org.verbs4j.api;

/**
 * Sizes of a queue pair's work queues ({@code struct ibv_qp_cap}). Asked for at creation; the device
 * may round them up, and {@link QueuePair#capabilities()} reports what it gave.
 *
 * @param maxSendWr     {@code max_send_wr}: outstanding send requests
 * @param maxRecvWr     {@code max_recv_wr}: outstanding receive requests
 * @param maxSendSge    {@code max_send_sge}: entries per send request
 * @param maxRecvSge    {@code max_recv_sge}: entries per receive request
 * @param maxInlineData {@code max_inline_data}: bytes a send may carry inline
 */
public record QpCapabilities(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData) {
}
