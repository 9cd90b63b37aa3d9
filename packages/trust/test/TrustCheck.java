import java.io.FileInputStream;
import java.net.URL;
import java.security.KeyStore;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;

// Connects to HTTPS URLs with given truststores, in one JVM (a JVM costs about a second to start).
// Each argument is STORE|TYPE|PASSWORD|URL; STORE "-" is the JVM's default context, that is
// -Djavax.net.ssl.trustStore. Prints "trusted <status> <arg>" or "rejected <arg>: <reason>".
public class TrustCheck {
  public static void main(String[] args) throws Exception {
    for (String arg : args) {
      String[] p = arg.split("\\|", -1);
      SSLContext ctx;
      if (p[0].equals("-")) {
        ctx = SSLContext.getDefault();
      } else {
        KeyStore ks = KeyStore.getInstance(p[1]);
        try (FileInputStream in = new FileInputStream(p[0])) {
          ks.load(in, p[2].isEmpty() ? null : p[2].toCharArray());
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ks);
        ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
      }
      HttpsURLConnection c = (HttpsURLConnection) new URL(p[3]).openConnection();
      c.setSSLSocketFactory(ctx.getSocketFactory());
      c.setConnectTimeout(10000);
      c.setReadTimeout(10000);
      try {
        System.out.println("trusted " + c.getResponseCode() + " " + arg);
      } catch (SSLHandshakeException e) {
        System.out.println("rejected " + arg + ": " + e.getMessage());
      }
    }
  }
}
