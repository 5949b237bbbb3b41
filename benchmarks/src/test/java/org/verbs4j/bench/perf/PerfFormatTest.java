package org.verbs4j.bench.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.Gid;

/**
 * verbs4j-perf's output against lines of rdma-core perftest 4.5-0.17 (Debian 12), recorded in the fabric lab
 * (ib_*_lat / ib_*_bw on rxe0 and siw0, -n 200 -s 64): the same values must print the same characters.
 */
class PerfFormatTest {

    @Test
    void latencyLineIsPerftestsReportFmtLat() {
        // ib_send_lat -n 200 -s 64 on rxe0, client
        assertEquals(" 64      200          13.64          282.06       21.26    \t       23.03       \t15.14  \t\t202.34  \t\t282.06 ",
                PerfFormat.latencyLine(new LatencyStats.Result(64, 200, 13.64, 282.06, 21.26, 23.03, 15.14, 202.34, 282.06)));
        // wider numbers push the columns, as C's %-7.2f does (ib_send_lat on siw0)
        assertEquals(" 64      200          40.48          12980.15      53.55    \t       1304.24     \t2564.04\t\t11761.03 \t\t12980.15",
                PerfFormat.latencyLine(new LatencyStats.Result(64, 200, 40.48, 12980.15, 53.55, 1304.24, 2564.04, 11761.03,
                        12980.15)));
    }

    @Test
    void bandwidthLinesArePerftestsReportFmtAndReportFmtExt() {
        // ib_send_bw -n 200 -s 64 on rxe0, client
        assertEquals(" 64         200              2.35               1.07   \t\t   0.017574",
                PerfFormat.bandwidthLine(new BandwidthStats.Result(64, 200, 2.35, 1.07, 0.017574), false));
        // ib_send_bw server: no peak
        assertEquals(" 64         200              0.00               1.55   \t\t   0.025384",
                PerfFormat.bandwidthLine(new BandwidthStats.Result(64, 200, 0, 1.55, 0.025384), false));
        // ib_write_bw --report_gbits below 0.1 Gb/s: REPORT_FMT_EXT with 6 decimals
        assertEquals(" 64         200           0.022037            0.012250            0.023926",
                PerfFormat.bandwidthLine(new BandwidthStats.Result(64, 200, 0.022037, 0.012250, 0.023926), true));
        // --report_gbits from 0.1 on: the usual two decimals
        assertEquals(" 65536      5000             9.87               9.50   \t\t   0.018123",
                PerfFormat.bandwidthLine(new BandwidthStats.Result(65536, 5000, 9.87, 9.5, 0.018123), true));
    }

    @Test
    void columnTitlesArePerftests() {
        assertEquals(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   "
                + "99% percentile[usec]   99.9% percentile[usec] ", PerfFormat.LAT_COLUMNS);
        assertEquals(" #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]", PerfFormat.BW_COLUMNS);
        assertEquals(" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]",
                PerfFormat.BW_COLUMNS_GBITS);
        assertEquals(87, PerfFormat.RESULT_LINE.length());
    }

    @Test
    void addressLinesAndGid() {
        // ib_write_lat on rxe0
        assertEquals(" local address: LID 0000 QPN 0x0013 PSN 0x9d89d7 RKey 0x00048c VAddr 0x005561c7bd4000",
                PerfFormat.addressLine(true, 0, 0x13, 0x9d89d7, PerfTest.WRITE_LAT, 0, 0x48c, 0x5561c7bd4000L));
        // ib_read_lat: outstanding reads before the RDMA fields
        assertEquals(" remote address: LID 0000 QPN 0x0016 PSN 0x3944ed OUT 0x80 RKey 0x000776 VAddr 0x0055ce7cef2000",
                PerfFormat.addressLine(false, 0, 0x16, 0x3944ed, PerfTest.READ_LAT, 128, 0x776, 0x55ce7cef2000L));
        // send tests: no RDMA fields; a short PSN keeps C's %#06x width
        assertEquals(" remote address: LID 0000 QPN 0x001c PSN 0x8a7de",
                PerfFormat.addressLine(false, 0, 0x1c, 0x8a7de, PerfTest.SEND_BW, 0, 0, 0));
        assertEquals(" local address: LID 0x01 QPN 0x0012 PSN 000000",
                PerfFormat.addressLine(true, 1, 0x12, 0, PerfTest.SEND_LAT, 0, 0, 0));
        assertEquals(" GID: 00:00:00:00:00:00:00:00:00:00:255:255:10:77:00:01",
                PerfFormat.gidLine(Gid.parse("::ffff:10.77.0.1")));
    }

    @Test
    void headerBlockOfAClientAndOfAServer() {
        List<String> client = PerfFormat.header(new PerfFormat.Header(PerfTest.SEND_LAT, "rxe0", "IB", true, 1, 200, 1, 1024,
                "Ethernet", 1, 0, 128, false, -1, -1, false, "RC", 1));
        assertEquals(List.of(PerfFormat.RESULT_LINE,
                "                    Send Latency Test",
                " Dual-port       : OFF\t\tDevice         : rxe0",
                " Number of qps   : 1\t\tTransport type : IB",
                " Connection type : RC\t\tUsing SRQ      : OFF",
                " PCIe relax order: OFF",
                " ibv_wr* API     : OFF",
                " TX depth        : 1",
                " Mtu             : 1024[B]",
                " Link type       : Ethernet",
                " GID index       : 1",
                " Max inline data : 0[B]",
                " rdma_cm QPs\t : OFF",
                " Data ex. method : Ethernet",
                PerfFormat.RESULT_LINE), client);
        List<String> server = PerfFormat.header(new PerfFormat.Header(PerfTest.READ_BW, "siw0", "IW", false, 128, 1, 100,
                1024, "Ethernet", 0, 0, 128, true, -1, 0, false, "RC", 1));
        assertEquals(List.of(PerfFormat.RESULT_LINE,
                "                    RDMA_Read BW Test",
                " Test with events. Using siw0_comp0",
                " Dual-port       : OFF\t\tDevice         : siw0",
                " Number of qps   : 1\t\tTransport type : IW",
                " Connection type : RC\t\tUsing SRQ      : OFF",
                " PCIe relax order: OFF",
                " ibv_wr* API     : OFF",
                " CQ Moderation   : 100",
                " Mtu             : 1024[B]",
                " Link type       : Ethernet",
                " GID index       : 0",
                " Outstand reads  : 128",
                " rdma_cm QPs\t : ON",
                " Data ex. method : rdma_cm",
                PerfFormat.RESULT_LINE,
                " Waiting for client rdma_cm QP to connect",
                " Please run the same command with the IB/RoCE interface IP",
                PerfFormat.RESULT_LINE), server);
        // -b: the title says so, and a server has a TX depth too
        List<String> duplex = PerfFormat.header(new PerfFormat.Header(PerfTest.WRITE_BW, "rxe0", "IB", false, 128, 1,
                100, 1024, "Ethernet", 1, 0, 128, false, -1, -1, true, "UC", 1));
        assertEquals("                    RDMA_Write Bidirectional BW Test", duplex.get(1));
        assertTrue(duplex.contains(" TX depth        : 128"), duplex.toString());
        assertTrue(duplex.contains(" Connection type : UC\t\tUsing SRQ      : OFF"), duplex.toString());
        assertTrue(duplex.stream().noneMatch(l -> l.startsWith(" Post List")), duplex.toString());
        // -l: the title and a line after the TX depth, as perftest prints them
        List<String> list = PerfFormat.header(new PerfFormat.Header(PerfTest.SEND_BW, "siw0", "IW", true, 128, 512,
                16, 1024, "Ethernet", 0, 0, 0, true, -1, -1, true, "RC", 16));
        assertEquals("                    Send Bidirectional Post List BW Test", list.get(1));
        assertEquals(" Post List       : 16", list.get(list.indexOf(" TX depth        : 128") + 1), list.toString());
        List<String> one = PerfFormat.header(new PerfFormat.Header(PerfTest.READ_BW, "siw0", "IW", true, 128, 1,
                16, 1024, "Ethernet", 0, 0, 16, true, -1, -1, false, "RC", 16));
        assertEquals("                    RDMA_Read Post List BW Test", one.get(1));
    }

    @Test
    void cStyleG() {
        assertEquals("21.26", PerfFormat.cG(21.26));
        assertEquals("13.6425", PerfFormat.cG(13.64251));
        assertEquals("1808.02", PerfFormat.cG(1808.02));
        assertEquals("123457", PerfFormat.cG(123456.7));
        assertEquals("1e+06", PerfFormat.cG(999999.7));
        assertEquals("0.0001", PerfFormat.cG(0.0001));
        assertEquals("1.5e-05", PerfFormat.cG(0.000015));
        assertEquals("0", PerfFormat.cG(0));
        assertEquals("2", PerfFormat.cG(2.0));
    }
}
