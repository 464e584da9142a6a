// JUnit extension: when a test fails, print the output of every broker that
// is still open (TestBroker.open()), since the broker's temp dir is removed
// when the test class ends.
package dev.spool.compat;

import java.util.Optional;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

public final class ShowBrokerLogOnFailure implements TestWatcher {
  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    for (TestBroker b : TestBroker.open()) {
      System.out.println("===== " + b.name() + " output (" + context.getDisplayName() + " failed) =====");
      System.out.println(b.logs());
    }
  }

  @Override
  public void testAborted(ExtensionContext context, Throwable cause) {
    testFailed(context, cause);
  }

  @Override
  public void testDisabled(ExtensionContext context, Optional<String> reason) {}
}
