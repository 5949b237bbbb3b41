package com.example.rdma;

import org.verbs4j.api.DeviceAttributes;
import org.verbs4j.api.DeviceContext;
import org.verbs4j.api.GidEntry;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.RdmaDevice;

/** Lists the RDMA devices, their first port and their GID table, as {@code ibv_devinfo} does. */
public final class ListDevices {
    public static void main(String[] args) {
        if (Rdma.devices().isEmpty()) {
            String why = Rdma.unavailableReason();                // null: libibverbs is there, no device is
            System.out.println(why != null ? why : "no RDMA devices found");
            return;
        }
        for (RdmaDevice d : Rdma.devices()) {                 // ibv_get_device_list
            try (DeviceContext ctx = d.open()) {               // ibv_open_device
                DeviceAttributes dev = ctx.queryDevice();      // ibv_query_device
                PortAttributes port = ctx.queryPort(1);        // ibv_query_port
                System.out.printf("%s: %s, max_qp %d, port 1 %s, MTU %d%n", d.name(), d.transportType().text(),
                        dev.maxQp(), port.state().text(), port.activeMtu().bytes());
                for (GidEntry g : ctx.queryGidTable()) {       // ibv_query_gid_table
                    System.out.println("  " + g);
                }
            }
        }
    }
}
