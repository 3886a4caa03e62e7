# rpart with cross-validated cost-complexity pruning (1-SE rule) on a train/test split, timed.
# Usage: Rscript benchmarks/rpart_fit.R TRAIN.csv TEST.csv TYPES.csv FOLDS.csv REPS OUT.csv
#   TRAIN.csv, TEST.csv  attributes and the class column "y"; missing values as empty cells
#   TYPES.csv  columns name,kind with kind categorical or numeric, one row per attribute
#   FOLDS.csv  one column "fold": the cross-validation group (1..k) of every training row
#   REPS       timed fits and timed predictions; the medians are written
# Fit = rpart(cp = 0, minsplit = 2, minbucket = 1, xval = the folds, no surrogates), as
# rpart_cptable.R grows it, then prune() at the CP of the smallest tree whose xerror is within
# one xstd of the minimum (Breiman's 1-SE rule, quercus's cv_rule="1se"). Writes OUT.csv:
# fit_seconds, predict_seconds, accuracy, n_leaves. Exits with status 3 without rpart.
args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 6) {
  stop("usage: rpart_fit.R TRAIN.csv TEST.csv TYPES.csv FOLDS.csv REPS OUT.csv")
}
if (!requireNamespace("rpart", quietly = TRUE)) {
  message("rpart is not installed")
  quit(status = 3)
}
library(rpart)
types <- read.csv(args[3], colClasses = "character")
read_part <- function(path) {
  d <- read.csv(path, colClasses = "character", na.strings = "", check.names = FALSE)
  for (i in seq_len(nrow(types))) {
    col <- types$name[i]
    d[[col]] <- if (types$kind[i] == "categorical") d[[col]] else as.numeric(d[[col]])
  }
  d
}
train <- read_part(args[1])
test <- read_part(args[2])
# Factor levels from both parts, so a level seen only in the test rows is not an error.
for (col in c(types$name[types$kind == "categorical"], "y")) {
  lev <- sort(unique(c(train[[col]], test[[col]])))
  train[[col]] <- factor(train[[col]], levels = lev)
  test[[col]] <- factor(test[[col]], levels = lev)
}
fold <- read.csv(args[4])$fold
reps <- as.integer(args[5])
control <- rpart.control(cp = 0, minsplit = 2, minbucket = 1, xval = fold,
                         maxsurrogate = 0, usesurrogate = 0)
fit_once <- function() {
  full <- rpart(y ~ ., data = train, method = "class", control = control)
  tab <- full$cptable
  best <- which.min(tab[, "xerror"])
  pick <- which(tab[, "xerror"] <= tab[best, "xerror"] + tab[best, "xstd"])[1]
  prune(full, cp = tab[pick, "CP"])
}
fit_s <- numeric(reps)
pred_s <- numeric(reps)
for (r in seq_len(reps)) {
  t0 <- proc.time()[["elapsed"]]
  fit <- fit_once()
  fit_s[r] <- proc.time()[["elapsed"]] - t0
}
for (r in seq_len(reps)) {
  t0 <- proc.time()[["elapsed"]]
  pred <- predict(fit, newdata = test, type = "class")
  pred_s[r] <- proc.time()[["elapsed"]] - t0
}
write.csv(data.frame(fit_seconds = median(fit_s), predict_seconds = median(pred_s),
                     accuracy = mean(as.character(pred) == as.character(test$y)),
                     n_leaves = sum(fit$frame$var == "<leaf>")),
          args[6], row.names = FALSE)
