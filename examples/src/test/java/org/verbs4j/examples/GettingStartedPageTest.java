package org.verbs4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/getting-started.md shows the program examples/bin/getting-started runs, verbatim, so they never drift. */
class GettingStartedPageTest {
    @Test
    void thePageShowsTheSourceVerbatim() throws Exception {
        Path module = PingPongLab.moduleDir();
        String page = Files.readString(module.getParent().resolve("docs/getting-started.md"), StandardCharsets.UTF_8);
        String source = Files.readString(module.resolve("src/main/java/org/verbs4j/examples/GettingStarted.java"),
                StandardCharsets.UTF_8);
        int start = page.indexOf("```java\npackage org.verbs4j.examples;");
        assertTrue(start >= 0, "docs/getting-started.md has a ```java block with the whole of GettingStarted.java");
        start += "```java\n".length();
        int end = page.indexOf("```\n", start);
        assertTrue(end > start, "the block ends");
        assertEquals(source, page.substring(start, end));
    }
}
