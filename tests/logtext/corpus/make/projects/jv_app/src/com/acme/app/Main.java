package com.acme.app;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.logging.Logger;

public class Main {
    private static final Logger LOG = Logger.getLogger(Main.class.getName());

    static Properties loadConfig(Path path) {
        Properties props = new Properties();
        try (var in = Files.newInputStream(path)) {
            props.load(in);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read configuration " + path, e);
        }
        return props;
    }

    static int port(Properties props) {
        return Integer.parseInt(props.getProperty("server.port", "8080").trim());
    }

    public static void main(String[] args) {
        LOG.info("starting billing-sync 1.8.0");
        String mode = args.length > 0 ? args[0] : "config";
        if (mode.equals("config")) {
            Properties props = loadConfig(Path.of(args.length > 1 ? args[1] : "conf/app.properties"));
            LOG.info("listening on port " + port(props));
        } else {
            LOG.warning("connection pool is at 90% capacity");
            try {
                port(new Properties() {{ setProperty("server.port", "80 80"); }});
            } catch (NumberFormatException e) {
                LOG.severe("invalid server.port in environment: " + e.getMessage());
                System.exit(3);
            }
        }
    }
}
