/**
 * Not for applications: the interfaces a backend ({@link org.verbs4j.api.spi.VerbsBackend}) and a fabric
 * provider ({@link org.verbs4j.api.spi.FabricProvider}) implement, and the close-safety base class of every
 * native object. The module exports this package only to verbs4j's own modules; applications use
 * {@link org.verbs4j.api.Fabric} instead.
 */
package org.verbs4j.api.spi;
