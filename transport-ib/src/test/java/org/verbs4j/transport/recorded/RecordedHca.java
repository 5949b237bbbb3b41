package org.verbs4j.transport.recorded;

import java.util.List;
import org.verbs4j.api.RdmaDevice;
import org.verbs4j.api.tools.IbvDevinfo;

/** One {@code hca_id} block of a recorded file: the parsed text, the device, its ports. */
public record RecordedHca(String file, IbvDevinfo.Hca raw, RdmaDevice device, List<RecordedPort> ports) {

    /** The port numbered {@code number}; fails when the recording has no such port. */
    public RecordedPort port(int number) {
        for (RecordedPort p : ports) {
            if (p.attributes().portNumber() == number) {
                return p;
            }
        }
        throw new IllegalArgumentException(file + ": " + device.name() + " has no port " + number + " in the recording");
    }

    @Override
    public String toString() {
        return file + ": " + device.name();
    }
}
