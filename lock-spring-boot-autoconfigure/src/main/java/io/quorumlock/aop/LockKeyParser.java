package io.quorumlock.aop;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.CompoundExpression;
import org.springframework.expression.spel.ast.MethodReference;
import org.springframework.expression.spel.ast.Projection;
import org.springframework.expression.spel.ast.PropertyOrFieldReference;
import org.springframework.expression.spel.ast.Selection;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;

/**
 * Reads the {@code key} of a {@code @DistributedLock} declaration: it parses, its
 * {@code #variables} are parameters, its bare names are root properties, and its
 * {@code @beans} are collected for the check against the bean factory. Anything that
 * would fail on every call is refused here, with the likely fix.
 */
final class LockKeyParser {

	private final LockKeyEvaluator evaluator;

	LockKeyParser(LockKeyEvaluator evaluator) {
		this.evaluator = evaluator;
	}

	/**
	 * Parse a key expression.
	 * @throws DistributedLockDeclarationException if it is empty, does not parse, or
	 * names what the method does not have
	 */
	Expression parse(String source, Method method, Class<?> targetClass, String description) {
		if (source.isBlank()) {
			throw new DistributedLockDeclarationException(description, "key", source,
					"is empty; give a SpEL expression such as \"#order.id\"");
		}
		Expression expression;
		try {
			expression = this.evaluator.parse(source, method, targetClass);
		}
		catch (ParseException ex) {
			throw new DistributedLockDeclarationException(description, "key", source,
					"is not a valid SpEL expression: " + ex.getSimpleMessage(), ex);
		}
		checkVariables(source, expression, method, description);
		checkRootReferences(source, expression, method, description);
		return expression;
	}

	/**
	 * Root properties and methods a key may name without '#': those of the root object.
	 */
	private static final Set<String> ROOT_NAMES = Set.of("method", "methodName", "target", "targetClass", "args");

	/**
	 * A bare name evaluated against the root object ({@code report} in
	 * {@code report-job}) must be one of its properties or methods; anything else fails
	 * on every call, so it is refused here with the likely fix.
	 */
	private void checkRootReferences(String source, Expression expression, Method method, String description) {
		if (!(expression instanceof SpelExpression spel)) {
			return;
		}
		String unknown = unknownRootReference(spel.getAST());
		if (unknown == null) {
			return;
		}
		String[] names = this.evaluator.parameterNames(method);
		boolean parameter = names != null && Arrays.asList(names).contains(unknown);
		String fix;
		if (parameter) {
			fix = "did you mean \"#" + unknown + "\" (the parameter)?";
		}
		else if (source.indexOf('\'') < 0 && source.indexOf('#') < 0 && source.indexOf('@') < 0) {
			fix = "for a constant key write it in single quotes: did you mean \"'" + source.trim() + "'\"?";
		}
		else {
			fix = "parameters are written #name, beans @name, constants in single quotes";
		}
		throw new DistributedLockDeclarationException(description, "key", source,
				"refers to '" + unknown + "', which is no parameter, bean or root property ("
						+ String.join(", ", new TreeSet<>(ROOT_NAMES)) + ") and would fail on every call; " + fix);
	}

	/**
	 * The first bare property or method name evaluated against the root that it lacks.
	 */
	private static String unknownRootReference(SpelNode node) {
		if (node instanceof PropertyOrFieldReference reference) {
			return ROOT_NAMES.contains(reference.getName()) ? null : reference.getName();
		}
		if (node instanceof MethodReference reference) {
			String name = reference.getName();
			boolean known = Arrays.stream(LockExpressionRootObject.class.getMethods())
				.anyMatch((candidate) -> candidate.getName().equals(name));
			if (!known) {
				return name;
			}
		}
		if (node instanceof Projection || node instanceof Selection) {
			return null; // evaluated against each element
		}
		// after the first step of a chain (a.b.c),
		// names are evaluated against the step before
		int children = (node instanceof CompoundExpression) ? Math.min(1, node.getChildCount()) : node.getChildCount();
		for (int i = 0; i < children; i++) {
			String found = unknownRootReference(node.getChild(i));
			if (found != null) {
				return found;
			}
		}
		return null;
	}

	/** Every {@code #variable} must be a parameter, by name or index, or root/this. */
	private void checkVariables(String source, Expression expression, Method method, String description) {
		if (!(expression instanceof SpelExpression spel)) {
			return;
		}
		Set<String> known = new LinkedHashSet<>();
		String[] names = this.evaluator.parameterNames(method);
		if (names != null) {
			known.addAll(Arrays.asList(names));
		}
		for (int i = 0; i < method.getParameterCount(); i++) {
			known.add("p" + i);
			known.add("a" + i);
		}
		Set<String> allowed = new LinkedHashSet<>(known);
		allowed.add("root");
		allowed.add("this");
		for (String variable : variables(spel.getAST(), new TreeSet<>())) {
			if (!allowed.contains(variable)) {
				String hint = known.isEmpty() ? "the method has no parameters"
						: "parameters: " + known.stream().map((n) -> "#" + n).collect(Collectors.joining(", "));
				if (names == null && method.getParameterCount() > 0) {
					hint += "; parameter names need the compiler's -parameters flag";
				}
				throw new DistributedLockDeclarationException(description, "key", source,
						"refers to #" + variable + ", which is not a parameter (" + hint + ")");
			}
		}
	}

	private static Set<String> variables(SpelNode node, Set<String> into) {
		if (node instanceof VariableReference) {
			into.add(node.toStringAST().substring(1));
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			variables(node.getChild(i), into);
		}
		return into;
	}

	/** The names of the beans a key refers to with {@code @name}. */
	static Set<String> beanReferences(Expression expression) {
		Set<String> names = new TreeSet<>();
		if (expression instanceof SpelExpression spel) {
			collectBeans(spel.getAST(), names);
		}
		return Set.copyOf(names);
	}

	private static void collectBeans(SpelNode node, Set<String> into) {
		if (node instanceof BeanReference) {
			String text = node.toStringAST();
			text = text.startsWith("@") ? text.substring(1) : text;
			if (text.length() > 1 && text.startsWith("'") && text.endsWith("'")) {
				text = text.substring(1, text.length() - 1);
			}
			into.add(text);
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			collectBeans(node.getChild(i), into);
		}
	}

}
