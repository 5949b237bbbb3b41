package org.verbs4j.jnr;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.verbs4j.api.AsyncEventType;
import org.verbs4j.api.WcStatus;
import org.verbs4j.api.cm.CmEventType;
import org.verbs4j.api.internal.RawMemory;

/** The texts verbs4j's enums carry are libibverbs' and librdmacm's own, read from the installed libraries. */
class EnumTextIT {

    @Test
    void wcStatusTextsAreIbvWcStatusStr() {
        for (WcStatus s : WcStatus.values()) {
            String theirs = RawMemory.getString(JnrBackend.lib().wcStatusStr.call(s.value()), 128);
            assertEquals(theirs, s.text(), "ibv_wc_status_str(" + s.value() + ")");
        }
    }

    @Test
    void asyncEventTextsAreIbvEventTypeStr() {
        for (AsyncEventType t : AsyncEventType.values()) {
            String theirs = RawMemory.getString(JnrBackend.lib().eventTypeStr.call(t.value()), 128);
            assertEquals(theirs, t.text(), "ibv_event_type_str(" + t.value() + ")");
        }
    }

    @Test
    void eventTypesMatchLibrdmacm() {
        LibRdmacm lib = LibRdmacm.get();
        for (CmEventType t : CmEventType.values()) {
            assertEquals(lib.eventName(t.value()), t.text(), "rdma_event_str(" + t.value() + ")");
            assertEquals(t, CmEventType.of(t.value()));
        }
    }
}
