package org.verbs4j.api.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class BackendsTest {
    private final FakeBackend jnr = new FakeBackend("jnr", 100, null, "rxe0");
    private final FakeBackend soft = new FakeBackend("softiwarp", 10, null, "jsiw_lo");
    private final FakeBackend broken = new FakeBackend("ffm", 50, "needs JDK 22");

    private static List<String> names(List<VerbsBackend> backends) {
        return backends.stream().map(VerbsBackend::name).toList();
    }

    @Test
    void everyAvailableBackendInPriorityOrderWhenNoneIsNamed() {
        assertEquals(List.of("jnr", "softiwarp"), names(Backends.available(List.of(jnr, broken, soft), null)));
    }

    @Test
    void theNamedBackendAlone() {
        assertEquals(List.of("softiwarp"), names(Backends.available(List.of(jnr, broken, soft), "softiwarp")));
    }

    @Test
    void aNamedBackendThatIsUnavailableOrAbsentGivesNone() {
        assertEquals(List.of(), Backends.available(List.of(jnr, broken, soft), "ffm"));
        assertEquals(List.of(), Backends.available(List.of(jnr, soft), "nosuch"));
    }
}
