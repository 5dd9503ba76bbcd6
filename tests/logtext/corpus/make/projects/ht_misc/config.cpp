#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <string>

std::string require_env(const char *name) {
    const char *value = std::getenv(name);
    if (!value) throw std::runtime_error(std::string("environment variable ") + name + " is required");
    return value;
}

int main() {
    std::cout << "starting exporter" << std::endl;
    std::cout << "endpoint: " << require_env("EXPORT_ENDPOINT") << std::endl;
}
