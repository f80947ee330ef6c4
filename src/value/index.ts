/**
 * taubridge's one Python-semantics module: the value model, its printers and reader, and Python's
 * operators, builtins and exceptions over it. Everything Python-specific that a domain or the
 * engine needs is imported from here, so domain tools read like the Python originals while
 * producing byte-identical output. See README.md for the naming convention and file map.
 */
export {
  PyFloat,
  asPyIndex,
  asPyNumber,
  fromJs,
  isPyDict,
  isPyFloat,
  isPyInt,
  isPyNumber,
  normalizeInt,
  pyDeepCopy,
  pyFloat,
  pyTypeName,
  toJs,
  toNumber,
  type PyDict,
  type PyNumber,
  type PyValue,
} from "./values.ts";
export {
  pyFloatRepr,
  pyJsonDumps,
  pyJsonDumpsIndented,
  pyJsonDumpsLine,
  pyJsonDumpsSortedKeys,
  PrintedJson,
  printedJson,
  pySortedKeys,
  pyJsonString,
  pyRepr,
  pyStr,
  pyStrRepr,
} from "./printing.ts";
export { JsonSyntaxError, parsePythonJson, scanPythonJsonArray, scanPythonJsonObject, type JsonArrayElement, type JsonObjectMember } from "./lossless-json.ts";
export { hashableEntry, hashableRepr } from "./hashable.ts";
export { PY_SAME_MAPS, pySameLeaves, pySameSortedText } from "./same-sorted.ts";
export {
  PyException,
  pyAssertionError,
  pyAttributeError,
  pyIndexError,
  pyKeyError,
  pyOverflowError,
  pyTypeError,
  pyValueError,
} from "./errors.ts";
export {
  pyCompareNumbers,
  pyCompareStrings,
  pyEquals,
  pyGreaterOrEqual,
  pyGreaterThan,
  pyIsOrEquals,
  pyLessOrEqual,
  pyLessThan,
  pyMax,
  pyNotEquals,
} from "./comparison.ts";
export {
  pyAppend,
  pyBool,
  pyContains,
  pyCount,
  pyDelItem,
  pyDictGet,
  pyExtend,
  pyGetItem,
  pyIterate,
  pyLen,
  pyRequireHashable,
  pySetItem,
  pySlice,
  pySliceIndex,
  pySorted,
  pyZip,
} from "./containers.ts";
export { pyAbs, pyAdd, pyIAdd, pyISub, pyMul, pyNeg, pyRound, pySub, pySum } from "./arithmetic.ts";
export { pyInt, pyLower, pyStartsWith } from "./strings.ts";
export { type PyStrEnum, pyEnumCall, pyEnumRepr, pyEnumValue, pyEnumValues, pyStrEnum } from "./enums.ts";
export { pyFormatFixed } from "./format.ts";
export {
  pyCollectionContains,
  pyCollectionGet,
  pyCollectionGetMutable,
  type PyCollectionStore,
} from "./collections.ts";
export { pyBindArguments, pyMissingArgumentsError, type PyParameter } from "./calls.ts";
export {
  PyModel,
  isPyModel,
  pyGetAttr,
  pyHasAttr,
  pyModelSchema,
  pyModelSchemaFingerprint,
  pyMergedFieldValue,
  pyModelUpdate,
  pyModelValidate,
  pyRevalidationKeeps,
  pyScalarStr,
  pySetAttr,
  pyT,
  pyValidateValue,
  type PyFieldType,
  type PyModelField,
  type PyModelSchema,
} from "./pydantic.ts";
export { bitLength, decomposeDouble, divideHalfEven, ratioToDouble } from "./float-bits.ts";
export { PyRandom, tau2TrialSeeds } from "./random.ts";
export { pyIsAlnum, pySplitWhitespace, pyStrip } from "./text.ts";
export { decodeUtf8, pyDecodeUtf8, STRICT_UTF8 } from "./utf8.ts";
export { pyMathLog } from "./math.ts";
export { PY_RE_ASCII, PY_RE_DOTALL, PY_RE_IGNORECASE, PY_RE_MULTILINE, PY_RE_VERBOSE, PyRePattern, pyReCompile, pyReEscape } from "./regex.ts";
export { RegexTranslationError, isPyReError, pyReError } from "./regex-syntax.ts";
export { pyFloatOf, pyFormatThousands, pyIsDigit, pyIsInteger, pyJoin, pyJsonLoads, pyLjust, pyReplace, pySha256Hexdigest, pyTitle, pyUpper } from "./str-methods.ts";
