package org.verbs4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The pages under docs/ stay user documentation: the performance page keeps the method and the latest tables
 * (at most 300 lines; each run's record lives under benchmarks/results/), and no page reads as a lab notebook
 * (superseded results, this project's issue numbers, commit hashes in backticks, UTC times).
 */
class UserDocsTest {
    /** "issue 12" or "issue #12" not preceded by another project's name ("UCX issue 9908" is a citation). */
    private static final Pattern OWN_ISSUE = Pattern.compile("(?<![A-Z][A-Za-z0-9-]{1,20} )\\b[Ii]ssues? #?\\d+");
    private static final Pattern COMMIT = Pattern.compile("`[0-9a-f]{7,40}`");
    private static final Pattern UTC_TIME = Pattern.compile("\\b\\d{1,2}:\\d{2}(:\\d{2})? ?UTC\\b");

    private static Path docs() {
        return PingPongLab.moduleDir().getParent().resolve("docs");
    }

    @Test
    void thePerformancePageKeepsToThreeHundredLines() throws IOException {
        List<String> lines = Files.readAllLines(docs().resolve("performance.md"), StandardCharsets.UTF_8);
        assertTrue(lines.size() <= 300, "docs/performance.md has " + lines.size()
                + " lines; keep the method and the latest tables there and move run records to benchmarks/results/");
    }

    @Test
    void noPageReadsAsALabNotebook() throws IOException {
        List<String> found = new ArrayList<>();
        try (Stream<Path> pages = Files.walk(docs())) {
            for (Path page : (Iterable<Path>) pages.filter(p -> p.toString().endsWith(".md"))::iterator) {
                List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
                for (int i = 0; i < lines.size(); i++) {
                    String line = lines.get(i);
                    String where = docs().relativize(page) + ":" + (i + 1) + ": ";
                    if (line.toLowerCase().contains("superseded")) {
                        found.add(where + "'superseded'");
                    }
                    for (Pattern p : List.of(OWN_ISSUE, COMMIT, UTC_TIME)) {
                        Matcher m = p.matcher(line);
                        if (m.find()) {
                            found.add(where + "'" + m.group() + "'");
                        }
                    }
                }
            }
        }
        assertEquals(List.of(), found, "user pages hold no run logs, issue numbers, commit hashes or UTC times");
    }

    @Test
    void theChecksSeeWhatTheyLookFor() {
        assertTrue(OWN_ISSUE.matcher("as issue 14 asks").find());
        assertTrue(OWN_ISSUE.matcher("see issue #3").find());
        assertTrue(!OWN_ISSUE.matcher("ConnectX-6 (UCX issue 9908)").find(), "another project's issue is a citation");
        assertTrue(COMMIT.matcher("fixed in `a3e9928`").find());
        assertTrue(UTC_TIME.matcher("run at 14:42 UTC").find());
    }
}
