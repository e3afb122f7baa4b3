package kotlin.coroutines;

/**
 * A stand-in for Kotlin's {@code Continuation}, which the compiler adds as the last
 * parameter of every {@code suspend} function: the parser recognises suspend functions by
 * this type name alone, so its tests need no Kotlin on the classpath.
 *
 * @param <T> the result type
 */
public interface Continuation<T> {

}
