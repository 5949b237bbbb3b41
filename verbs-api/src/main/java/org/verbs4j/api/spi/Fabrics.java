package org.verbs4j.api.spi;

import org.verbs4j.api.FabricOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
import org.verbs4j.api.PortAttributes;
import org.verbs4j.api.RdmaDevice;

/** Finds the {@link FabricProvider} of a port: by name when asked, else the one that serves it. */
public final class Fabrics {
    /** System property naming the provider to use for every port (e.g. {@code roce}). */
    public static final String PROVIDER_PROPERTY = "verbs4j.fabric";

    private static volatile List<FabricProvider> providers;

    private Fabrics() {
    }

    /** {@return every provider on the class path (or module path), found once with the ServiceLoader} */
    public static List<FabricProvider> providers() {
        List<FabricProvider> p = providers;
        if (p == null) {
            List<FabricProvider> found = new ArrayList<>();
            for (FabricProvider f : ServiceLoader.load(FabricProvider.class, Fabrics.class.getClassLoader())) {
                found.add(f);
            }
            providers = p = List.copyOf(found);
        }
        return p;
    }

    /**
     * The provider named {@code name}.
     *
     * @param name a provider's {@link FabricProvider#name()}: {@code ib}, {@code roce}, {@code iwarp}
     * @return that provider
     * @throws IllegalArgumentException when none has that name; the message lists the ones there are
     */
    public static FabricProvider named(String name) {
        for (FabricProvider f : providers()) {
            if (f.name().equals(name)) {
                return f;
            }
        }
        throw new IllegalArgumentException("no fabric provider named '" + name + "'; on the class path: "
                + providers().stream().map(FabricProvider::name).collect(Collectors.joining(", "))
                + " (add org.verbs4j:transport-ib, transport-roce or transport-iwarp)");
    }

    /**
     * The provider for {@code port} of {@code device}: {@code options.provider()} or the system property
     * {@value #PROVIDER_PROPERTY} when set, otherwise the one whose {@link FabricProvider#serves} says yes.
     *
     * @param device  the device
     * @param port    the attributes of the port used
     * @param options the caller's choices; null for none
     * @return the provider
     * @throws IllegalArgumentException when a provider is named and none has that name
     * @throws IllegalStateException    when none is named and no provider serves the port
     */
    public static FabricProvider forPort(RdmaDevice device, PortAttributes port, FabricOptions options) {
        String name = options != null && options.provider() != null ? options.provider()
                : System.getProperty(PROVIDER_PROPERTY);
        if (name != null) {
            return named(name);
        }
        for (FabricProvider f : providers()) {
            if (f.serves(device, port)) {
                return f;
            }
        }
        throw new IllegalStateException("no fabric provider serves " + device.name() + " port " + port.portNumber()
                + " (transport " + device.transportType().text() + ", link layer " + port.linkLayer().text()
                + "); providers on the class path: " + providers().stream().map(FabricProvider::name)
                        .collect(Collectors.joining(", ")));
    }
}
