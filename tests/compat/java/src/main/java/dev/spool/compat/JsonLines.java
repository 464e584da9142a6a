// One JSON object per line on stdout: the event stream the client drivers in this package
// (FailoverClient, GroupMember, EosProcessor) print for the Python tests in tests/system. Thread-safe.
package dev.spool.compat;

public final class JsonLines {
  private JsonLines() {}

  /** Wall-clock seconds, the `t` of every event. */
  public static double now() {
    return System.currentTimeMillis() / 1000.0;
  }

  /** A JSON string literal for s. */
  public static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') b.append('\\').append(c);
      else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
      else b.append(c);
    }
    return b.append('"').toString();
  }

  /** Prints one line (a whole JSON object) and flushes. */
  public static synchronized void emit(String json) {
    System.out.println(json);
    System.out.flush();
  }
}
