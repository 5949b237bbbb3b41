package org.verbs4j.api;

/** Attributes of a shared receive queue ({@code struct ibv_srq_attr}). */
public record SrqAttributes(int maxWr, int maxSge, int limit) {
}
