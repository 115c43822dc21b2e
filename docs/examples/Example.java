// The abha-link serve flow in Java 17, standard library only (java Example.java [clinical-input.json]):
// build, validate, render, FHIR, an ABHA search through the server, and a submission followed to its outcome.
// ABHA_LINK_SERVE_URL (default http://127.0.0.1:8080) and ABHA_LINK_SERVE_TOKEN come from the environment.
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class Example {
  static final String URL = System.getenv().getOrDefault("ABHA_LINK_SERVE_URL", "http://127.0.0.1:8080");
  static final String TOKEN = System.getenv("ABHA_LINK_SERVE_TOKEN");
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  static HttpResponse<String> call(String method, String path, String body, String accept) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(URL + path))
        .timeout(Duration.ofSeconds(30))
        .header("Authorization", "Bearer " + TOKEN)
        .header("Content-Type", "application/json")
        .header("Accept", accept);
    b = body == null ? b.method(method, HttpRequest.BodyPublishers.noBody()) : b.method(method, HttpRequest.BodyPublishers.ofString(body));
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> post(String path, String body) throws Exception {
    return call("POST", path, body, "application/json");
  }

  /** One string field of a JSON answer (a JSON library such as Jackson does this properly). */
  static String field(String json, String name) {
    Matcher m = Pattern.compile("\"" + name + "\":\"([^\"]*)\"").matcher(json);
    return m.find() ? m.group(1) : "";
  }

  static void check(String what, HttpResponse<String> r, int... ok) {
    for (int s : ok) if (r.statusCode() == s) return;
    // The answer lists the issues, each with the field's JSON Pointer.
    System.err.println(what + ": HTTP " + r.statusCode() + " " + r.body());
    System.exit(1);
  }

  public static void main(String[] args) throws Exception {
    String input = Files.readString(Path.of(args.length > 0 ? args[0] : "examples/opd-prescription.input.json"));

    HttpResponse<String> built = post("/v1/build", input);
    check("build", built, 200);
    String request = built.body();
    System.out.println("build: " + field(request, "visitId"));

    HttpResponse<String> valid = post("/v1/validate?lint=true", request);
    check("validate", valid, 200);
    if (!valid.body().contains("\"valid\":true")) check("validate", valid);
    System.out.println("validate: valid");

    HttpResponse<String> html = call("POST", "/v1/render?template=prescription", input, "text/html");
    check("render", html, 200);
    System.out.println("render: " + html.body().length() + " characters of HTML");

    HttpResponse<String> fhir = post("/v1/fhir", input);
    check("fhir", fhir, 200);
    System.out.println("fhir: a " + field(fhir.body(), "resourceType"));

    HttpResponse<String> search = post("/v1/service/api/m1/abha/search/abha", "{\"mobile\":\"9000000001\"}");
    check("search", search, 200);
    System.out.println("search: ok");

    HttpResponse<String> queued = post("/v1/submissions", request);
    check("submit", queued, 200, 202);
    String id = field(queued.body(), "id");
    String status = field(queued.body(), "status");
    for (int i = 0; i < 100 && (status.equals("queued") || status.equals("sending")); i++) {
      Thread.sleep(200);
      status = field(call("GET", "/v1/submissions/" + id, null, "application/json").body(), "status");
    }
    System.out.println("submission " + id + ": " + status);
    System.exit(status.equals("acknowledged") ? 0 : 1);
  }
}
