// The Java client's key partitioning for 10,000 keys, checked against the
// committed reference tests/unit/client/data/murmur2_reference.txt, which
// the C++ test tests/unit/client/partitioner_test.cc checks Spool's
// murmur2 and partition_for_key against. With SPOOL_WRITE_REFERENCE=1 this
// test writes the file instead. No broker.
//
// Keys come from their index alone (the C++ test builds the same bytes):
//   rng = splitmix64 seeded with KEY_SEED + index (64-bit wrapping add),
//   next() = { state += 0x9E3779B97F4A7C15;
//              z = (state ^ (state >>> 30)) * 0xBF58476D1CE4E5B9;
//              z = (z ^ (z >>> 27)) * 0x94D049BB133111EB;
//              return z ^ (z >>> 31); }
//   index <= 100:        index random bytes (covers length 0 and every tail)
//   else index % 4 == 1: UTF-8 "key-" + index / 4
//   else index % 4 == 3: UTF-8 "\u043a\u043b\u044e\u0447-" + index / 4 + "-\u00e9\u20ac\ud834\udd1e"
//                        ("ключ-<n>-é€𝄞": 2-, 3- and 4-byte sequences)
//   else:                next() mod 101 (unsigned) random bytes
//   random byte = low 8 bits of next().
// Each line: index, murmur2 (signed decimal), then partitionForKey for
// 1, 3, 7, 12, 100 and 1000 partitions.
package dev.spool.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

class PartitionerReferenceTest {
  static final int KEYS = 10_000;
  static final int[] PARTITION_COUNTS = {1, 3, 7, 12, 100, 1000};
  static final long KEY_SEED = 0x53504F4F4C4B4559L; // "SPOOLKEY"
  static final String REFERENCE = "tests/unit/client/data/murmur2_reference.txt";
  static final String HEADER =
      "# Kafka's murmur2 and partitionForKey (kafka-clients) for the keys of"
          + " PartitionerReferenceTest.java; columns: index murmur2 p1 p3 p7 p12 p100 p1000";

  static final class SplitMix64 {
    long state;

    SplitMix64(long seed) {
      state = seed;
    }

    long next() {
      state += 0x9E3779B97F4A7C15L;
      long z = state;
      z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
      z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
      return z ^ (z >>> 31);
    }
  }

  static byte[] randomBytes(SplitMix64 rng, int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) b[i] = (byte) rng.next();
    return b;
  }

  static byte[] key(int index) {
    SplitMix64 rng = new SplitMix64(KEY_SEED + index);
    if (index <= 100) return randomBytes(rng, index);
    switch (index % 4) {
      case 1:
        return ("key-" + index / 4).getBytes(StandardCharsets.UTF_8);
      case 3:
        return ("\u043a\u043b\u044e\u0447-" + index / 4 + "-\u00e9\u20ac\ud834\udd1e")
            .getBytes(StandardCharsets.UTF_8);
      default:
        return randomBytes(rng, (int) Long.remainderUnsigned(rng.next(), 101));
    }
  }

  static String line(int index) {
    byte[] k = key(index);
    StringBuilder sb = new StringBuilder();
    sb.append(index).append(' ').append(Utils.murmur2(k));
    for (int n : PARTITION_COUNTS) {
      int p = BuiltInPartitioner.partitionForKey(k, n);
      assertEquals(Utils.toPositive(Utils.murmur2(k)) % n, p);
      sb.append(' ').append(p);
    }
    return sb.toString();
  }

  /** The repository root: the nearest directory above the working one holding REFERENCE's folder. */
  static Path repoRoot() {
    Path dir = Path.of("").toAbsolutePath();
    for (Path d = dir; d != null; d = d.getParent()) {
      if (Files.isDirectory(d.resolve("tests/unit/client"))) return d;
    }
    throw new IllegalStateException("no tests/unit/client above " + dir);
  }

  @Test
  void javaClientMatchesCommittedReference() throws IOException {
    List<String> expected = new ArrayList<>();
    expected.add(HEADER);
    for (int i = 0; i < KEYS; i++) expected.add(line(i));

    Path file = repoRoot().resolve(REFERENCE);
    if ("1".equals(System.getenv("SPOOL_WRITE_REFERENCE"))) {
      Files.createDirectories(file.getParent());
      Files.write(file, expected, StandardCharsets.UTF_8);
    }
    assertTrue(Files.isRegularFile(file), file + " is missing (SPOOL_WRITE_REFERENCE=1 writes it)");
    List<String> actual = Files.readAllLines(file, StandardCharsets.UTF_8);
    assertEquals(expected.size(), actual.size(), "lines in " + file);
    for (int i = 0; i < expected.size(); i++) {
      assertEquals(expected.get(i), actual.get(i), "line " + (i + 1) + " of " + file);
    }
  }

  @Test
  void keysCoverTheTailCasesAndUtf8() {
    assertEquals(0, key(0).length);
    for (int n = 1; n <= 4; n++) assertEquals(n, key(n).length);
    assertEquals("key-42", new String(key(169), StandardCharsets.UTF_8));
    assertEquals("\u043a\u043b\u044e\u0447-25-\u00e9\u20ac\ud834\udd1e",
        new String(key(103), StandardCharsets.UTF_8));
  }
}
