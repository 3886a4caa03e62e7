# Fixtures for quercus.LogisticRegression: R's glm(..., family = binomial) on a few data
# sets, written to tests/data/glm/ (the data as CSV, R's numbers as JSON), so the tests can
# compare without R.
#
# Usage (from the repository root): Rscript benchmarks/glm_fixtures.R [OUT_DIR]
# Needs R with MASS and mlbench (Debian: r-base-core r-cran-mass r-cran-mlbench).
#
# Factor levels are sorted with LC_COLLATE=C (code-point order for UTF-8 text), the order
# quercus uses: R's default sorts strings in the session's locale, which differs between
# machines (in a Chinese locale 色泽 sorts by pinyin, 浅白 < 青绿 < 乌黑).
invisible(Sys.setlocale("LC_COLLATE", "C"))
args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args)) args[1] else file.path("tests", "data", "glm")
dir.create(out, showWarnings = FALSE, recursive = TRUE)

# ---------------------------------------------------------------- a small JSON writer
# (jsonlite is not a Debian base package; the fixtures need numbers, strings and lists)
json_num <- function(x) {
  if (length(x) == 0) return("[]")
  s <- ifelse(is.na(x), "null", sprintf("%.17g", x))
  if (length(x) == 1 && is.null(names(x))) s else paste0("[", paste(s, collapse = ", "), "]")
}
json_str <- function(x) {
  x <- gsub("\\\\", "\\\\\\\\", x)
  x <- gsub("\"", "\\\\\"", x)
  paste0("\"", x, "\"")
}
json_strs <- function(x) {
  if (length(x) == 0) "[]" else paste0("[", paste(json_str(x), collapse = ", "), "]")
}
json_obj <- function(fields) {
  paste0("{\n", paste0("  ", json_str(names(fields)), ": ", unlist(fields), collapse = ",\n"),
         "\n}\n")
}

write_data <- function(d, name) {
  write.csv(d, file.path(out, paste0(name, ".csv")), row.names = FALSE, na = "",
            fileEncoding = "UTF-8")
}

# ---------------------------------------------------------------- one fitted model
# name: fixture name; formula as text; data: the data frame; data_file: its CSV name;
# categorical: the columns quercus must treat as categorical (R: factors, logicals);
# weights: the prior-weights column or NULL; maxit: glm.control's.
fixture <- function(name, formula, data, data_file, categorical = character(0),
                    weights = NULL, maxit = 25L) {
  warns <- character(0)
  f <- as.formula(formula)
  response <- all.vars(f)[1]
  # a text response is a factor: its second level (sorted) is the event
  if (is.character(data[[response]])) data[[response]] <- factor(data[[response]])
  m <- withCallingHandlers(
    {
      if (is.null(weights)) {
        glm(f, family = binomial, data = data, control = glm.control(maxit = maxit))
      } else {
        data$.w <- data[[weights]]
        glm(f, family = binomial, data = data, weights = .w,
            control = glm.control(maxit = maxit))
      }
    },
    warning = function(w) {
      warns <<- c(warns, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
  s <- summary(m)
  cf <- coef(m)
  se <- z <- p <- rep(NA_real_, length(cf))
  names(se) <- names(z) <- names(p) <- names(cf)
  tab <- s$coefficients
  se[rownames(tab)] <- tab[, 2]
  z[rownames(tab)] <- tab[, 3]
  p[rownames(tab)] <- tab[, 4]
  ci <- suppressMessages(confint.default(m))
  v <- vcov(m)
  printed <- capture.output(print(s))
  terms_used <- attr(terms(f, data = data), "term.labels")
  fields <- list(
    name = json_str(name),
    formula = json_str(formula),
    data = json_str(data_file),
    response = json_str(response),
    event = json_str(levels(factor(data[[response]]))[2]),
    features = json_strs(terms_used),
    categorical = json_strs(categorical),
    weights = if (is.null(weights)) "null" else json_str(weights),
    fit_intercept = if (attr(terms(f, data = data), "intercept") == 1) "true" else "false",
    maxit = json_num(maxit),
    coef_names = json_strs(names(cf)),
    coefficients = json_num(unname(cf)),
    std_errors = json_num(unname(se)),
    z_values = json_num(unname(z)),
    p_values = json_num(unname(p)),
    conf_low = json_num(unname(ci[, 1])),
    conf_high = json_num(unname(ci[, 2])),
    vcov = json_num(as.vector(v)),
    vcov_names = json_strs(colnames(v)),
    null_deviance = json_num(m$null.deviance),
    deviance = json_num(m$deviance),
    df_null = json_num(m$df.null),
    df_residual = json_num(m$df.residual),
    aic = json_num(m$aic),
    rank = json_num(m$rank),
    iter = json_num(m$iter),
    converged = if (m$converged) "true" else "false",
    fitted = json_num(unname(fitted(m))),
    linear_predictor = json_num(unname(m$linear.predictors)),
    deviance_residuals = json_num(unname(residuals(m, type = "deviance"))),
    warnings = json_strs(warns),
    summary = json_strs(printed),
    r_version = json_str(R.version.string)
  )
  cat(json_obj(fields), file = file.path(out, paste0(name, ".json")))
  cat(sprintf("%-28s %d iterations, %d warnings\n", name, m$iter, length(warns)))
}

# ---------------------------------------------------------------- the data sets
# golf: Quinlan's weather data as quercus bundles it; windy as a logical (R names its
# coefficient windyTRUE). Quasi-complete separation: every overcast day is a "yes".
golf <- read.csv(file.path("quercus", "datasets", "data", "golf.csv"), encoding = "UTF-8")
golf$windy <- golf$windy == "true"
write_data(golf, "golf")

# watermelon 3.0 (Zhou Zhihua's table 4.3)
melon <- read.csv(file.path("quercus", "datasets", "data", "watermelon_3_0.csv"),
                  encoding = "UTF-8")
melon$编号 <- NULL
write_data(melon, "watermelon_3_0")

# mtcars, with an aliased copy of wt (exactly twice it) for the rank-deficient fit
cars <- cbind(model = rownames(mtcars), mtcars)
rownames(cars) <- NULL
cars$wt2 <- 2 * cars$wt
write_data(cars, "mtcars")
cars_f <- cars
cars_f$cyl <- factor(cars_f$cyl)

# Pima Indians diabetes: MASS's training set (200 rows) and mlbench's full set (768 rows),
# and the training set with integer prior weights (zero included: those rows drop out)
pima <- MASS::Pima.tr
pima$type <- as.character(pima$type)
pima$w <- rep(c(1, 2, 0, 3), length.out = nrow(pima))
write_data(pima, "pima_tr")
env <- new.env()
data("PimaIndiansDiabetes", package = "mlbench", envir = env)
pima768 <- env$PimaIndiansDiabetes
pima768$diabetes <- as.character(pima768$diabetes)
write_data(pima768, "pima_indians_diabetes")

melon$色泽 <- factor(melon$色泽)
golf$outlook <- factor(golf$outlook)

fixture("golf", "play ~ outlook + temperature + humidity + windy", golf, "golf.csv",
        categorical = c("outlook", "windy"))
fixture("watermelon", "好瓜 ~ 密度 + 含糖率", melon, "watermelon_3_0.csv")
fixture("watermelon_color", "好瓜 ~ 色泽 + 密度 + 含糖率", melon, "watermelon_3_0.csv",
        categorical = "色泽")
fixture("watermelon_color_no_intercept", "好瓜 ~ 0 + 色泽 + 密度 + 含糖率", melon,
        "watermelon_3_0.csv", categorical = "色泽")
fixture("mtcars_am", "am ~ wt + hp", cars_f, "mtcars.csv")
fixture("mtcars_am_no_intercept", "am ~ 0 + wt + hp", cars_f, "mtcars.csv")
fixture("mtcars_cyl", "am ~ wt + cyl", cars_f, "mtcars.csv", categorical = "cyl")
fixture("mtcars_vs_separated", "vs ~ mpg + cyl", cars_f, "mtcars.csv", categorical = "cyl")
fixture("mtcars_aliased", "am ~ wt + hp + wt2", cars_f, "mtcars.csv")
fixture("mtcars_complete_separation", "am ~ wt + drat + qsec", cars_f, "mtcars.csv")
fixture("pima_tr", "type ~ npreg + glu + bp + skin + bmi + ped + age", pima, "pima_tr.csv")
fixture("pima_tr_weighted", "type ~ npreg + glu + bp + skin + bmi + ped + age", pima,
        "pima_tr.csv", weights = "w")
fixture("pima_tr_maxit3", "type ~ npreg + glu + bp + skin + bmi + ped + age", pima,
        "pima_tr.csv", maxit = 3L)
fixture("pima_indians_diabetes",
        "diabetes ~ pregnant + glucose + pressure + triceps + insulin + mass + pedigree + age",
        pima768, "pima_indians_diabetes.csv")
