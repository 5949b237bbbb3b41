package org.verbs4j.endpoint;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.verbs4j.api.spi.Fabrics;

/** Which fabrics have immediate data is the fabric providers' knowledge, which the endpoint asks. */
class ImmediateDataTest {
    @Test
    void iwarpHasNoneTheOthersHave() {
        assertTrue(Fabrics.named("roce").supportsImmediateData());
        assertTrue(Fabrics.named("ib").supportsImmediateData());
        assertFalse(Fabrics.named("iwarp").supportsImmediateData());
    }
}
