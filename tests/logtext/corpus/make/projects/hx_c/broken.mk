VERSION = 1.2.0

dist:
        tar czf meter-$(VERSION).tar.gz src Makefile
