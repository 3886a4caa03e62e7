# Time rpart's default fit with 10-fold cross-validation (xval = 10) on exported data sets.
# Usage: Rscript --vanilla benchmarks/rpart_xval_time.R MANIFEST.tsv OUT.tsv REPS MIN_SECONDS
# MANIFEST.tsv (tab-separated, with a header): name, csv, method ("class" or "anova"),
# factors (comma-separated column names to read as factors, "-" for none). Each csv has the
# target in column "y" and missing values as empty cells. For every data set: one untimed
# fit, then REPS timings with system.time() of a loop of enough fits to last MIN_SECONDS,
# each divided by its number of fits. Writes name, median, min, max (seconds per fit),
# fits per timing, the number of rows the fit used and the number of splits of the tree.
# rpart(y ~ ., data, method = method, control = rpart.control(xval = 10)): every other
# setting is rpart's default (cp = 0.01, minsplit = 20, minbucket = 7, maxsurrogate = 5,
# usesurrogate = 2, maxdepth = 30, maxcompete = 4). Exits with status 3 without rpart.
args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 4) stop("usage: rpart_xval_time.R MANIFEST OUT REPS MIN_SECONDS")
if (!requireNamespace("rpart", quietly = TRUE)) {
  message("rpart is not installed")
  quit(status = 3)
}
library(rpart)
manifest <- read.delim(args[1], stringsAsFactors = FALSE)
reps <- as.integer(args[3])
min_seconds <- as.numeric(args[4])
out <- data.frame()
for (k in seq_len(nrow(manifest))) {
  m <- manifest[k, ]
  d <- read.csv(m$csv, na.strings = "", stringsAsFactors = FALSE, encoding = "UTF-8",
                check.names = FALSE)
  factors <- if (m$factors == "-") character(0) else strsplit(m$factors, ",")[[1]]
  for (col in names(d)) {
    if (col == "y") next
    if (col %in% factors || is.character(d[[col]]) || is.logical(d[[col]]))
      d[[col]] <- factor(d[[col]])
  }
  if (m$method == "class") d$y <- factor(d$y) else d$y <- as.numeric(d$y)
  fit <- function() rpart(y ~ ., data = d, method = m$method,
                          control = rpart.control(xval = 10))
  set.seed(0)
  tree <- fit()  # untimed
  t1 <- system.time(fit())[["elapsed"]]
  inner <- max(1L, as.integer(ceiling(min_seconds / max(t1, 1e-4))))
  times <- numeric(reps)
  for (r in seq_len(reps)) {
    times[r] <- system.time(for (i in seq_len(inner)) fit())[["elapsed"]] / inner
  }
  n_splits <- if (is.null(tree$splits)) 0L else sum(tree$frame$var != "<leaf>")
  out <- rbind(out, data.frame(name = m$name, median = median(times), min = min(times),
                               max = max(times), inner = inner,
                               n_used = sum(!is.na(d$y)), n_splits = n_splits))
}
write.table(out, args[2], sep = "\t", row.names = FALSE, quote = FALSE)
