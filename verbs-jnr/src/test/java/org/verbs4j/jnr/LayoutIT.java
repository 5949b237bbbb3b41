package org.verbs4j.jnr;

import org.verbs4j.lab.Lab;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Proves every offset, size and value in the backend's layout tables ({@link Layout} for libibverbs,
 * {@link RdmacmLayout} for librdmacm, {@link LibcLayout} for libc) against the installed headers:
 * generates a C program that prints {@code offsetof}/{@code sizeof} (or the constant) for each, compiles
 * it with gcc, runs it, and compares. A wrong offset would silently corrupt memory, so this runs in the
 * lab on every build.
 */
class LayoutIT {

    /**
     * One layout table: its class, the headers that declare its structs, the least number of constants it
     * has (so that a table emptied by mistake fails), and its name prefixes in order: {prefix, C}. C is a
     * struct (the constant is {@code offsetof} the lower-cased rest of its name), a {@code sizeof(...)}
     * (for exactly that constant), or null (the constant is a C value of the same name).
     */
    record Table(Class<?> type, String include, int atLeast, String[][] prefixes) {
        @Override
        public String toString() {
            return type.getSimpleName();
        }

        /** The C expression for {@code constant}, or null when no prefix covers it. */
        String cExpression(String constant) {
            for (String[] p : prefixes) {
                if (p[1] != null && p[1].startsWith("sizeof")) {
                    if (constant.equals(p[0])) {
                        return p[1];
                    }
                    continue;
                }
                if (constant.startsWith(p[0])) {
                    return p[1] == null ? constant
                            : "offsetof(" + p[1] + ", " + constant.substring(p[0].length()).toLowerCase() + ")";
                }
            }
            return null;
        }

        List<Field> constants() {
            List<Field> l = new ArrayList<>();
            for (Field f : type.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) && f.getType() == int.class) {
                    f.setAccessible(true);
                    l.add(f);
                }
            }
            return l;
        }

        /** Constant name → the C expression that yields its value. */
        Map<String, String> expectations() {
            Map<String, String> m = new LinkedHashMap<>();
            for (Field f : constants()) {
                String c = cExpression(f.getName());
                if (c != null) {
                    m.put(f.getName(), c);
                }
            }
            return m;
        }

        int value(String name) {
            try {
                Field f = type.getDeclaredField(name);
                f.setAccessible(true);
                return f.getInt(null);
            } catch (ReflectiveOperationException e) {
                throw new AssertionError(e);
            }
        }
    }

    static final Table VERBS = new Table(Layout.class, "#include <infiniband/verbs.h>\n", 140, new String[][] {
        {"DEVICE_ATTR_SIZE", "sizeof(struct ibv_device_attr)"},
        {"DEVICE_ATTR_EX_SIZE", "sizeof(struct ibv_device_attr_ex)"},
        {"PORT_ATTR_SIZE", "sizeof(struct ibv_port_attr)"},
        {"GID_ENTRY_SIZE", "sizeof(struct ibv_gid_entry)"},
        {"VERBS_CONTEXT_SIZE", "sizeof(struct verbs_context)"},
        {"DEVICE_NAME_MAX", "sizeof(((struct ibv_device *)0)->name)"},
        {"DA_FW_VER_LEN", "sizeof(((struct ibv_device_attr *)0)->fw_ver)"},
        {"QP_INIT_ATTR_SIZE", "sizeof(struct ibv_qp_init_attr)"},
        {"QP_CAP_SIZE", "sizeof(struct ibv_qp_cap)"},
        {"QP_ATTR_SIZE", "sizeof(struct ibv_qp_attr)"},
        {"AH_ATTR_SIZE", "sizeof(struct ibv_ah_attr)"},
        {"SRQ_INIT_ATTR_SIZE", "sizeof(struct ibv_srq_init_attr)"},
        {"SRQ_ATTR_SIZE", "sizeof(struct ibv_srq_attr)"},
        {"ASYNC_EVENT_SIZE", "sizeof(struct ibv_async_event)"},
        {"DEVICE_", "struct ibv_device"},
        {"PD_", "struct ibv_pd"},
        {"MR_", "struct ibv_mr"},
        {"COMP_CHANNEL_", "struct ibv_comp_channel"},
        {"CQ_", "struct ibv_cq"},
        {"QP_", "struct ibv_qp"},
        {"SRQ_", "struct ibv_srq"},
        {"QIA_", "struct ibv_qp_init_attr"},
        {"QC_", "struct ibv_qp_cap"},
        {"QA_", "struct ibv_qp_attr"},
        {"AA_", "struct ibv_ah_attr"},
        {"GR_", "struct ibv_global_route"},
        {"SIA_", "struct ibv_srq_init_attr"},
        {"SA_", "struct ibv_srq_attr"},
        {"AE_", "struct ibv_async_event"},
        {"CONTEXT_", "struct ibv_context"},
        {"OPS_", "struct ibv_context_ops"},
        {"VERBS_CONTEXT_", "struct verbs_context"},
        {"DA_", "struct ibv_device_attr"},
        {"PA_", "struct ibv_port_attr"},
        {"GE_", "struct ibv_gid_entry"},
    });

    static final Table RDMACM = new Table(RdmacmLayout.class, "#include <rdma/rdma_cma.h>\n", 30, new String[][] {
        {"CONN_PARAM_SIZE", "sizeof(struct rdma_conn_param)"},
        {"UD_PARAM_SIZE", "sizeof(struct rdma_ud_param)"},
        {"RDMA_", null},
        {"ID_", "struct rdma_cm_id"},
        {"EVENT_", "struct rdma_cm_event"},
        {"CP_", "struct rdma_conn_param"},
        {"UD_", "struct rdma_ud_param"},
        {"CHANNEL_", "struct rdma_event_channel"},
    });

    static final Table LIBC = new Table(LibcLayout.class,
            "#include <poll.h>\n#include <netinet/in.h>\n#include <sys/socket.h>\n#include <sys/eventfd.h>\n#include <fcntl.h>\n", 18,
            new String[][] {
                {"POLLFD_SIZE", "sizeof(struct pollfd)"},
                {"SOCKADDR_IN_SIZE", "sizeof(struct sockaddr_in)"},
                {"SOCKADDR_IN6_SIZE", "sizeof(struct sockaddr_in6)"},
                {"POLLIN", null},
                {"EFD_", null},
                {"O_NONBLOCK", null},
                {"F_GETFL", null},
                {"F_SETFL", null},
                {"AF_", null},
                {"PFD_", "struct pollfd"},
                {"SIN6_", null}, // offsetof(struct sockaddr_in6, sin6_...): the field names keep their prefix
                {"SIN_", null},
            });

    /** {@code struct ibv_device_attr_ex}'s members, nested in sub-structs, so named here: constant, member path. */
    static final String[][] DEVICE_ATTR_EX = {
        {"DAX_ODP_GENERAL_CAPS", "odp_caps.general_caps"},
        {"DAX_RC_ODP_CAPS", "odp_caps.per_transport_caps.rc_odp_caps"},
        {"DAX_UC_ODP_CAPS", "odp_caps.per_transport_caps.uc_odp_caps"},
        {"DAX_UD_ODP_CAPS", "odp_caps.per_transport_caps.ud_odp_caps"},
        {"DAX_COMPLETION_TIMESTAMP_MASK", "completion_timestamp_mask"},
        {"DAX_HCA_CORE_CLOCK", "hca_core_clock"},
        {"DAX_DEVICE_CAP_FLAGS_EX", "device_cap_flags_ex"},
        {"DAX_MAX_TSO", "tso_caps.max_tso"},
        {"DAX_TSO_SUPPORTED_QPTS", "tso_caps.supported_qpts"},
        {"DAX_RSS_SUPPORTED_QPTS", "rss_caps.supported_qpts"},
        {"DAX_MAX_RWQ_INDIRECTION_TABLES", "rss_caps.max_rwq_indirection_tables"},
        {"DAX_MAX_RWQ_INDIRECTION_TABLE_SIZE", "rss_caps.max_rwq_indirection_table_size"},
        {"DAX_RX_HASH_FIELDS_MASK", "rss_caps.rx_hash_fields_mask"},
        {"DAX_RX_HASH_FUNCTION", "rss_caps.rx_hash_function"},
        {"DAX_MAX_WQ_TYPE_RQ", "max_wq_type_rq"},
        {"DAX_QP_RATE_LIMIT_MIN", "packet_pacing_caps.qp_rate_limit_min"},
        {"DAX_QP_RATE_LIMIT_MAX", "packet_pacing_caps.qp_rate_limit_max"},
        {"DAX_PACKET_PACING_SUPPORTED_QPTS", "packet_pacing_caps.supported_qpts"},
        {"DAX_RAW_PACKET_CAPS", "raw_packet_caps"},
        {"DAX_TM_MAX_RNDV_HDR_SIZE", "tm_caps.max_rndv_hdr_size"},
        {"DAX_TM_MAX_NUM_TAGS", "tm_caps.max_num_tags"},
        {"DAX_TM_FLAGS", "tm_caps.flags"},
        {"DAX_TM_MAX_OPS", "tm_caps.max_ops"},
        {"DAX_TM_MAX_SGE", "tm_caps.max_sge"},
        {"DAX_MAX_CQ_COUNT", "cq_mod_caps.max_cq_count"},
        {"DAX_MAX_CQ_PERIOD", "cq_mod_caps.max_cq_period"},
        {"DAX_MAX_DM_SIZE", "max_dm_size"},
        {"DAX_XRC_ODP_CAPS", "xrc_odp_caps"},
    };

    static Stream<Table> tables() {
        return Stream.of(VERBS, RDMACM, LIBC);
    }

    /** The expression of a libc constant, whose sockaddr field names keep their own prefix (sin_port). */
    static Map<String, String> expectations(Table t) {
        Map<String, String> m = t.expectations();
        if (t == RDMACM) {
            // the UD event parameters lie in the same union as the connection parameters
            m.put("EVENT_PARAM", "offsetof(struct rdma_cm_event, param.ud)");
            // the route's addresses, in struct rdma_addr's unions
            m.put("ID_ROUTE_SRC_ADDR", "offsetof(struct rdma_cm_id, route.addr.src_addr)");
            m.put("ID_ROUTE_DST_ADDR", "offsetof(struct rdma_cm_id, route.addr.dst_addr)");
        }
        if (t == VERBS) {
            for (String[] f : DEVICE_ATTR_EX) {
                m.put(f[0], "offsetof(struct ibv_device_attr_ex, " + f[1] + ")");
            }
        }
        if (t == LIBC) {
            m.replaceAll((k, v) -> k.startsWith("SIN6_") ? "offsetof(struct sockaddr_in6, " + k.toLowerCase() + ")"
                    : k.startsWith("SIN_") ? "offsetof(struct sockaddr_in, " + k.toLowerCase() + ")" : v);
        }
        return m;
    }

    @ParameterizedTest
    @MethodSource("tables")
    void everyOffsetSizeAndValueMatchesTheInstalledHeaders(Table t) throws IOException {
        Map<String, String> exp = expectations(t);
        assertTrue(exp.size() >= t.atLeast(), "only " + exp.size() + " constants found in " + t);
        Map<String, Long> theirs = probe(t.include(), exp);
        List<String> wrong = new ArrayList<>();
        theirs.forEach((name, value) -> {
            if (t.value(name) != value) {
                wrong.add(name + ": " + t + " says " + t.value(name) + ", the headers say " + value + " (" + exp.get(name) + ")");
            }
        });
        assertTrue(wrong.isEmpty(), t + " disagrees with the installed headers:\n" + String.join("\n", wrong));
    }

    /**
     * The value of each C expression of {@code expressions} (name → expression), from a program that includes
     * {@code include}, compiled with gcc (warnings are errors) and run in the lab. Fails unless every one printed.
     */
    static Map<String, Long> probe(String include, Map<String, String> expressions) throws IOException {
        Path dir = Files.createTempDirectory("verbs4j-layout");
        StringBuilder c = new StringBuilder("#include <stddef.h>\n#include <stdio.h>\n" + include + "int main(void) {\n");
        for (Map.Entry<String, String> e : expressions.entrySet()) {
            c.append("    printf(\"%s %zu\\n\", \"").append(e.getKey()).append("\", (size_t) (")
                    .append(e.getValue()).append("));\n");
        }
        c.append("    return 0;\n}\n");
        Path src = dir.resolve("layout.c");
        Files.writeString(src, c);
        Path exe = dir.resolve("layout");
        Lab.run("gcc", "-Wall", "-Werror", "-o", exe.toString(), src.toString());
        String out = Lab.run(exe.toString());
        Map<String, Long> values = new LinkedHashMap<>();
        for (String line : out.split("\n")) {
            String[] kv = line.trim().split(" ");
            if (kv.length == 2) {
                values.put(kv[0], Long.parseLong(kv[1]));
            }
        }
        assertEquals(expressions.keySet(), values.keySet(), "the probe printed other values than asked:\n" + out);
        return values;
    }

    @ParameterizedTest
    @MethodSource("tables")
    void everyConstantIsCovered(Table t) {
        Map<String, String> exp = expectations(t);
        for (Field f : t.constants()) {
            assertTrue(exp.containsKey(f.getName()), "no C expression for " + t + "." + f.getName());
        }
    }

    @Test
    void prefixesPickTheirStruct() {
        assertEquals("offsetof(struct rdma_cm_event, param)", RDMACM.cExpression("EVENT_PARAM"));
        assertEquals("offsetof(struct sockaddr_in6, sin6_scope_id)", expectations(LIBC).get("SIN6_SCOPE_ID"));
        assertEquals("offsetof(struct sockaddr_in, sin_port)", expectations(LIBC).get("SIN_PORT"));
        assertEquals("sizeof(struct ibv_qp_attr)", VERBS.cExpression("QP_ATTR_SIZE"));
    }
}
