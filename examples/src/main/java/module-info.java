/**
 * verbs4j's runnable examples, written as a user writes them: against the exported packages of the
 * {@code org.verbs4j} module only. {@code examples/bin/*} run them on the module path.
 */
module org.verbs4j.examples {
    requires org.verbs4j;
    requires jdk.management; // the examples report their allocation (com.sun.management)
}
