#include "heur/heur.h"
#include <stdio.h>
static bool no(const heur_facts *hf, char *why, size_t n) { (void)hf; snprintf(why, n, "todo"); return false; }
static void nh(const heur_facts *hf, void *p) { (void)hf; (void)p; }
static bool na(const heur_facts *hf, const void *p, heur_result *o) { (void)hf; (void)p; (void)o; return false; }
const heur_scheduler heur_transpose = {"transpose", no, nh, na};
