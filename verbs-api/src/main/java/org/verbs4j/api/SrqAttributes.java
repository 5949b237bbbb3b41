package org.verbs4j.api;

/**
 * Attributes of a shared receive queue ({@code struct ibv_srq_attr}).
 *
 * @param maxWr  {@code max_wr}: the most outstanding receive requests
 * @param maxSge {@code max_sge}: the most scatter/gather entries per request
 * @param limit  {@code srq_limit}: the limit event fires when fewer requests remain
 */
public record SrqAttributes(int maxWr, int maxSge, int limit) {
}
