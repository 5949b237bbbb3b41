/** The software RNIC's verbs resources: device, protection domains, memory regions and STags, queues. */
package org.verbs4j.softiwarp;
