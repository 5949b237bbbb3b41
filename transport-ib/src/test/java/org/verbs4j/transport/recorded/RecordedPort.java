package org.verbs4j.transport.recorded;

import java.util.List;
import org.verbs4j.api.GidEntry;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.tools.IbvDevinfo;

/**
 * One port of a recorded device: the text as parsed ({@link #raw}, for expectations read straight from
 * what the tool printed), and the API objects a provider decides on.
 */
public record RecordedPort(String file, RdmaDevice device, IbvDevinfo.Port raw, PortAttributes attributes,
        List<GidEntry> gids) {

    /** The value {@code ibv_devinfo} printed for {@code key} in this port's block, or null. */
    public String printed(String key) {
        return raw.get(key);
    }

    @Override
    public String toString() {
        return file + ": " + device.name() + " port " + attributes.portNumber();
    }
}
