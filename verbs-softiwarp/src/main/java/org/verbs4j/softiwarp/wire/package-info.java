/** iWARP on the wire: MPA framing and negotiation, DDP segments, RDMAP messages; bounded parsers. */
package org.verbs4j.softiwarp.wire;
