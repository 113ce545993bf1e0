#version 150
// wec client, last-seen marker (fragment stage, R9.10): a translucent ghost of the
// piece where it was last seen. Vertex colour times wec_tint (and p3d_ColorScale) at
// the tint's low alpha where the surface faces the viewer; towards the silhouette a
// fresnel rim glows in a lighter tint and grows more opaque, so the outline reads
// clearly while the board shows through. Unlit. Alpha blended (client/shading.py).

uniform vec4 p3d_ColorScale;

uniform vec4 wec_tint;    // rgb: ghost colour; a: opacity facing the viewer

in vec3 v_view_position;
in vec3 v_view_normal;
in vec4 v_color;

out vec4 o_color;

const float RIM_POWER = 2.0;
const float RIM_ALPHA = 0.8;       // opacity at the silhouette (before p3d_ColorScale)
const float RIM_LIGHTEN = 0.5;     // rim colour: the tint this far towards white

void main() {
    vec4 body = v_color * wec_tint * p3d_ColorScale;
    float rim = 0.0;
    float normal_length = length(v_view_normal);
    if (normal_length > 1e-4) {
        vec3 n = v_view_normal / normal_length;
        vec3 to_eye = normalize(-v_view_position);
        rim = pow(1.0 - clamp(abs(dot(n, to_eye)), 0.0, 1.0), RIM_POWER);
    }
    vec3 glow = mix(wec_tint.rgb, vec3(1.0), RIM_LIGHTEN) * p3d_ColorScale.rgb;
    float rim_alpha = max(body.a, RIM_ALPHA * v_color.a * p3d_ColorScale.a);
    o_color = vec4(mix(body.rgb, glow, rim), mix(body.a, rim_alpha, rim));
}
